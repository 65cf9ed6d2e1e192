"""What CI installs and what a CI run requires.

* In CI (``CI=true``) a test skipped for want of a module that an extra installs fails
  (tests/conftest.py); elsewhere it skips. Each case runs pytest in a subprocess on real
  test files, with a plugin that makes torch and scikit-learn unimportable and
  unfindable, as on a machine without the extras: skipped at a module's import
  (``pytest.importorskip`` at module level), inside a test (a fixture's
  ``importorskip``), by an explicit skip naming torch, and by scikit-learn's absence.
* The ``test`` extra pins hypothesis exactly (another version can draw other examples,
  so CI would run other random graphs than the ones the tests were checked with) and
  installs scikit-learn (tests/test_data.py compares the bundled digits with its copy).
"""
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_EXTRAS = '''\
import importlib.util
import sys

HIDDEN = ("torch", "torchviz", "sklearn")
_find_spec = importlib.util.find_spec


def find_spec(name, package=None):
    return None if name.split(".")[0] in HIDDEN else _find_spec(name, package)


importlib.util.find_spec = find_spec
for name in HIDDEN:
    sys.modules[name] = None         # import raises ImportError
'''

MODULE = ["tests/test_random_graphs.py"]
IN_TESTS = ["tests/test_engine_rules.py", "tests/differential/test_scenarios.py", "tests/test_data.py",
            "-k", "leaves_and_nodes_ready_together or trace_matches_torch and h04 or sklearn"]
FAILURE = "CI=true, so this is a failure: install "


def run_without_extras(tmp_path, ci, args):
    (tmp_path / "without_extras.py").write_text(WITHOUT_EXTRAS)
    env = dict(os.environ, CI=ci,
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "without_extras",
                           "-p", "no:cacheprovider", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_module_that_needs_torch_fails_in_ci(tmp_path):
    done = run_without_extras(tmp_path, "true", MODULE)
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout     # a collection error
    assert "ERROR collecting tests/test_random_graphs.py" in done.stdout
    assert FAILURE + "torch with pip install -e '.[torch]'" in done.stdout


@pytest.mark.slow
def test_tests_that_need_an_extra_fail_in_ci(tmp_path):
    done = run_without_extras(tmp_path, "true", IN_TESTS)
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    # the fixture's skip fails the test's setup (an error); the other two fail the test
    assert "2 failed" in done.stdout and "1 error" in done.stdout, done.stdout
    assert done.stdout.count(FAILURE + "torch with pip install -e '.[torch]'") == 2
    assert done.stdout.count(FAILURE + "sklearn with pip install -e '.[test]'") == 1


@pytest.mark.slow
def test_a_missing_extra_skips_outside_ci(tmp_path):
    done = run_without_extras(tmp_path, "", MODULE + IN_TESTS)
    assert done.returncode == pytest.ExitCode.OK, done.stdout
    assert "4 skipped" in done.stdout and FAILURE not in done.stdout, done.stdout


def _test_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return {re.split(r"[=<>!~\[ ;]", req, maxsplit=1)[0]: req for req in extras["test"]}     # name -> line


def test_hypothesis_is_pinned_to_one_version():
    requirement = _test_extra()["hypothesis"]
    assert re.fullmatch(r"hypothesis==[\d.]+", requirement), requirement
    if version("hypothesis") != requirement.split("==")[1]:
        pytest.skip(f"hypothesis {version('hypothesis')} is installed, the test extra pins "
                    f"{requirement}: the random tests may draw other examples here than in CI")


def test_the_test_extra_installs_scikit_learn():
    assert "scikit-learn" in _test_extra()


def test_a_kernel_that_dies_while_starting_is_started_again(monkeypatch):
    """The checkout's root conftest wraps nbval's kernel start: a kernel that died at
    start-up is started again; one that dies every time, or fails another way, fails."""
    from nbval import kernel
    wrapper = kernel.start_new_kernel
    assert type(wrapper).__name__ == "RetriedKernelStart"
    died = RuntimeError("Kernel died before replying to kernel_info")
    calls = []

    def dies_once(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise died
        return "manager", "client"

    monkeypatch.setattr(wrapper, "start", dies_once)
    assert wrapper(kernel_name="python3") == ("manager", "client")
    assert calls == [{"kernel_name": "python3"}] * 2

    def always_dies(**kwargs):
        calls.append(kwargs)
        raise died

    calls.clear()
    monkeypatch.setattr(wrapper, "start", always_dies)
    with pytest.raises(RuntimeError, match="Kernel died"):
        wrapper()
    assert len(calls) == wrapper.attempts

    def times_out(**kwargs):
        calls.append(kwargs)
        raise RuntimeError("Kernel didn't respond in 180 seconds")

    calls.clear()
    monkeypatch.setattr(wrapper, "start", times_out)
    with pytest.raises(RuntimeError, match="respond"):
        wrapper()
    assert len(calls) == 1
