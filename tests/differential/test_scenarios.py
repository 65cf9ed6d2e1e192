"""Differential tests: every script in scenarios/ must print the same trace
under real PyTorch and under minigrad (via ``python -m minigrad.run``, which redirects
``import torch`` to minigrad).

Each scenario runs in its own subprocess on both sides, so a crash, a hang or
leftover global state (grad mode, saved-tensor hook stack) in one scenario
cannot leak into another. Torch's results are cached per test session.

Deliberate differences are normalised through known_differences.toml (see
that file and README.md); it starts empty: the goal is identical traces.
"""
import difflib
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCENARIOS_DIR = HERE / "scenarios"
KNOWN_DIFFERENCES = HERE / "known_differences.toml"
REPO_ROOT = HERE.parent.parent
DIFFERENCES_DOC = REPO_ROOT / "docs" / "differences.md"
TIMEOUT = 60  # seconds, per script per side

SCRIPTS = sorted(SCENARIOS_DIR.glob("*.py"))
# Both tests of one scenario share its cached traces: keep them on one xdist worker
# (``--dist loadgroup``) while different scenarios spread over the workers.
SCRIPT_PARAMS = [pytest.param(s, id=s.stem, marks=pytest.mark.xdist_group(s.stem)) for s in SCRIPTS]
TORCH_AVAILABLE = importlib.util.find_spec("torch") is not None

# script name -> Run, computed at most once per side per session
_TORCH_RUNS = {}
_MINIGRAD_RUNS = {}


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def _env():
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    # `python -m minigrad.run` must import this working tree's minigrad.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    return env


def _run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                           cwd=str(REPO_ROOT), env=_env())
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return Run(None, out, f"TIMEOUT after {TIMEOUT}s: {' '.join(map(str, cmd))}")
    return Run(p.returncode, p.stdout, p.stderr)


def torch_run(script):
    if not TORCH_AVAILABLE:
        pytest.skip("torch is not installed (pip install -e '.[torch]')")
    if script.name not in _TORCH_RUNS:
        _TORCH_RUNS[script.name] = _run([sys.executable, str(script)])
    return _TORCH_RUNS[script.name]


def minigrad_run(script):
    if script.name not in _MINIGRAD_RUNS:
        _MINIGRAD_RUNS[script.name] = _run([sys.executable, "-m", "minigrad.run", str(script)])
    return _MINIGRAD_RUNS[script.name]


def load_known_differences():
    """{scenario name or "*": [entry, ...]}; each entry has torch, minigrad, why, replace."""
    if not KNOWN_DIFFERENCES.exists():
        return {}
    with open(KNOWN_DIFFERENCES, "rb") as f:
        return tomllib.load(f)


def normalise(text, scenario, side):
    """Apply the known-difference substitutions for `scenario` (and "*") to one trace."""
    table = load_known_differences()
    entries = table.get("*", []) + table.get(scenario, [])
    if not entries:
        return text
    lines = text.splitlines(keepends=True)
    for entry in entries:
        pattern = re.compile(entry[side])
        replacement = entry.get("replace", "<normalised>")
        lines = [pattern.sub(replacement, line) for line in lines]
    return "".join(lines)


def _diff(expected, actual, name):
    return "".join(difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True),
        fromfile=f"torch/{name}", tofile=f"minigrad/{name}", n=3))


def _tail(text, n=25):
    lines = text.splitlines()
    return "\n".join(lines[-n:])


@pytest.mark.torch
@pytest.mark.parametrize("script", SCRIPT_PARAMS)
def test_trace_matches_torch(script):
    ref = torch_run(script)
    assert ref.returncode == 0, (
        f"the scenario itself fails under real torch (rc={ref.returncode}):\n{_tail(ref.stderr)}")
    got = minigrad_run(script)
    expected = normalise(ref.stdout, script.stem, "torch")
    actual = normalise(got.stdout, script.stem, "minigrad")
    if expected != actual:
        pytest.fail(
            f"trace differs from torch for {script.name}\n"
            f"reproduce: python -m minigrad.diff {script.relative_to(REPO_ROOT)}\n"
            f"{_diff(expected, actual, script.name)}\n"
            f"--- minigrad stderr (tail) ---\n{_tail(got.stderr)}",
            pytrace=False)
    assert got.returncode == ref.returncode, (
        f"exit code {got.returncode} under minigrad, {ref.returncode} under torch\n"
        f"--- minigrad stderr (tail) ---\n{_tail(got.stderr)}")


@pytest.mark.torch
@pytest.mark.parametrize("script", SCRIPT_PARAMS)
def test_no_traceback_unless_torch_has_one(script):
    ref = torch_run(script)
    got = minigrad_run(script)
    if "Traceback (most recent call last)" in ref.stderr:
        return
    assert "Traceback (most recent call last)" not in got.stderr, (
        f"minigrad raised where torch did not: {script.name}\n{_tail(got.stderr)}")


def test_known_differences_file_is_well_formed():
    """Every entry names an existing scenario (or "*"), has compilable regexes for
    both sides and a non-empty `why`, and is listed in docs/differences.md."""
    table = load_known_differences()
    names = {s.stem for s in SCRIPTS} | {"*"}
    for scenario, entries in table.items():
        assert scenario in names, f"known_differences.toml: no scenario named {scenario!r}"
        assert isinstance(entries, list), f"[[{scenario}]] must be an array of tables"
        for entry in entries:
            for key in ("torch", "minigrad"):
                assert key in entry, f"{scenario}: entry lacks {key!r}"
                re.compile(entry[key])
            assert str(entry.get("why", "")).strip(), f"{scenario}: entry lacks a 'why'"
            unknown = set(entry) - {"torch", "minigrad", "replace", "why"}
            assert not unknown, f"{scenario}: unknown keys {sorted(unknown)}"
        doc = DIFFERENCES_DOC.read_text() if DIFFERENCES_DOC.exists() else ""
        assert scenario in doc, (
            f"known_differences.toml has entries for {scenario!r} but docs/differences.md "
            f"does not mention it: every allowed difference must be documented there")
