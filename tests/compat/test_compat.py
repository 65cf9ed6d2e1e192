"""The compatibility corpus: every script in scripts/ is ordinary PyTorch code of the
kind found in docs, tutorials and forum answers around hooks, and must print the same
under minigrad (``python -m minigrad.run``) as under real PyTorch, in the sense of
``python -m minigrad.diff``: stdout, stderr and exit status, after its normalisations.

CI time: the scripts do not get two interpreters each. corpus_runner.py runs all of them
in one subprocess per framework (the two run side by side) and the per-script outputs
are compared here, one test item per script.
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
    """At least 60 scripts, each written against `torch` alone, like user code."""
    assert len(SCRIPTS) >= 60, f"only {len(SCRIPTS)} scripts in {HERE / 'scripts'}"
    for script in SCRIPTS:
        text = script.read_text()
        assert "import torch" in text, f"{script.name} does not import torch"
        assert "minigrad" not in text, f"{script.name} mentions minigrad: corpus scripts are plain PyTorch"


@pytest.mark.torch
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_script_prints_the_same_as_torch(script, outputs):
    ref, got = outputs["torch"][script.name], outputs["minigrad"][script.name]
    assert ref["returncode"] == 0, (
        f"{script.name} must run cleanly under real torch:\n{ref['stderr'][-3000:]}")
    report = compare(ref, got, str(script))
    if report is not None:
        pytest.fail(f"{script.name} differs from torch\n"
                    f"reproduce: python -m minigrad.diff {script.relative_to(REPO_ROOT)}\n{report}",
                    pytrace=False)
