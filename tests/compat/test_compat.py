"""The compatibility corpus: every script in scripts/ is ordinary PyTorch code of the
kind found in docs, tutorials and forum answers around hooks, and must print the same
under minigrad (``python -m minigrad.run``) as under real PyTorch, in the sense of
``python -m minigrad.diff``: stdout, stderr and exit status, after its normalisations.

CI time: the scripts do not get two interpreters each. corpus_runner.py runs all of them
in one subprocess per framework (the two run side by side) and the per-script outputs
are compared here, one test item per script.

A script that still differs for a known reason is listed in KNOWN_DIFFERENCES with that
reason (docs/differences.md has the same list): its test is a strict xfail, so the day
the script prints the same under both, the test fails and says to move it out.
"""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.diff import compare

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
SCRIPTS = sorted((HERE / "scripts").glob("*.py"))
RUNNER = HERE / "corpus_runner.py"
TIMEOUT = 600  # seconds for the whole corpus, per framework
TORCH_AVAILABLE = importlib.util.find_spec("torch") is not None

_APIS = "the hook-based nn.utils parametrizations"
_MODES = ("a TorchDispatchMode sees no factory (aten.ones, aten.rand) and none of the ops the engine "
          "runs in PyTorch (ones_like, detach)")
# {script name: why it still differs}. Each entry is a strict xfail; docs/differences.md
# ("Compatibility corpus: scripts that still differ") gives the same causes.
KNOWN_DIFFERENCES = {
    "c113_printing_dispatch_mode.py": _MODES,
    "c118_function_and_dispatch_modes.py": _MODES,
    "c134_spectral_norm_parametrization.py": _APIS + ": parametrizations.spectral_norm",
}


def _as_param(script):
    reason = KNOWN_DIFFERENCES.get(script.name)
    marks = [pytest.mark.xfail(strict=True, reason=f"{reason} (passes now? take it out of KNOWN_DIFFERENCES "
                                                   "and docs/differences.md)")] if reason else []
    return pytest.param(script, id=script.stem, marks=marks)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """{"torch": {script name: run}, "minigrad": {...}}, both corpora run concurrently."""
    if not TORCH_AVAILABLE:
        pytest.skip("torch is not installed (pip install -e '.[torch]')")
    tmp = tmp_path_factory.mktemp("compat")
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    procs = {}
    for framework in ("torch", "minigrad"):
        cmd = [sys.executable, str(RUNNER), framework, str(tmp / f"{framework}.json"), *map(str, SCRIPTS)]
        procs[framework] = subprocess.Popen(cmd, cwd=str(tmp), env=env, text=True,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = {}
    for framework, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the {framework} corpus run took more than {TIMEOUT} s:\n{err[-3000:]}")
        assert proc.returncode == 0, f"the {framework} corpus runner crashed:\n{out[-2000:]}\n{err[-3000:]}"
        results[framework] = json.loads((tmp / f"{framework}.json").read_text(encoding="utf-8"))
    return results


def test_corpus_is_large_and_plain_pytorch():
    """At least 120 scripts, each written against `torch` alone, like user code."""
    assert len(SCRIPTS) >= 120, f"only {len(SCRIPTS)} scripts in {HERE / 'scripts'}"
    for script in SCRIPTS:
        text = script.read_text()
        assert "import torch" in text, f"{script.name} does not import torch"
        assert "minigrad" not in text, f"{script.name} mentions minigrad: corpus scripts are plain PyTorch"


def test_every_known_difference_names_a_script_of_the_corpus():
    names = {script.name for script in SCRIPTS}
    assert not set(KNOWN_DIFFERENCES) - names, "KNOWN_DIFFERENCES names scripts that do not exist"


@pytest.mark.torch
@pytest.mark.parametrize("script", [_as_param(script) for script in SCRIPTS])
def test_script_prints_the_same_as_torch(script, outputs):
    ref, got = outputs["torch"][script.name], outputs["minigrad"][script.name]
    assert ref["returncode"] == 0, (
        f"{script.name} must run cleanly under real torch:\n{ref['stderr'][-3000:]}")
    report = compare(ref, got, str(script))
    if report is not None:
        pytest.fail(f"{script.name} differs from torch\n"
                    f"reproduce: python -m minigrad.diff {script.relative_to(REPO_ROOT)}\n{report}",
                    pytrace=False)
