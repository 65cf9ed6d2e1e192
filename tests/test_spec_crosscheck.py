"""Cross-check of the spec scenarios (spec/scenarios/) between real PyTorch and minigrad.

For every registered scenario:

- under PyTorch (skipped when torch is not installed): ``run`` must not raise, must give
  the same trace twice, and ``check(trace)`` must pass -- this is what makes the
  scenario's VERDICT true of PyTorch 2.13 -- and the trace must equal the recording
  committed in ``spec/torch_traces/`` (which the notebooks show), else the recording is
  stale: ``python tools/record_torch_traces.py``;
- under minigrad: the same, and the trace must equal PyTorch's recorded one line for
  line (compared with the recording, so this part needs no torch).

Each framework runs in its own subprocess (this file doubles as the runner:
``python tests/test_spec_crosscheck.py FRAMEWORK OUT.json``), so minigrad's process never
imports torch (checked) and neither leaks state into pytest. Inside a subprocess every
scenario runs twice, in two full passes over the registry, so a hook leaked by one
scenario into the next shows up as a difference between the passes.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec"
PACKAGE_DIR = SPEC / "scenarios"
# A unique import name: tests/differential has its own "scenarios" folder.
PACKAGE = "spec_scenarios"


def load_package():
    """spec/scenarios/ imported as ``spec_scenarios`` (no sys.path change)."""
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    spec = importlib.util.spec_from_file_location(
        PACKAGE, PACKAGE_DIR / "__init__.py", submodule_search_locations=[str(PACKAGE_DIR)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)
    return module


# --- the runner (runs in the subprocess) ------------------------------------------------


def run_all(framework_name: str) -> dict:
    """{"results": {name: {...}}, "torch_imported": bool, "framework_file": path} for one
    framework (``framework_file`` tells which copy of it was imported)."""
    framework = importlib.import_module(framework_name)
    pkg = load_package()
    results = {name: {"traces": [], "error": None, "check_error": None} for name in pkg.NAMES}
    for _ in range(2):
        for name, mod in pkg.all_scenarios():
            entry = results[name]
            if entry["error"] is not None:
                continue
            try:
                entry["traces"].append(list(mod.run(framework)))
            except BaseException:
                entry["error"] = traceback.format_exc()
    for name, mod in pkg.all_scenarios():
        entry = results[name]
        if entry["error"] is None:
            try:
                mod.check(entry["traces"][0])
            except BaseException:
                entry["check_error"] = traceback.format_exc()
    return {"results": results, "torch_imported": "torch" in sys.modules,
            "framework_file": framework.__file__}


if __name__ == "__main__":
    data = run_all(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps(data), encoding="utf-8")
    sys.exit(0)


# --- the tests ----------------------------------------------------------------------------

import pytest  # noqa: E402  (the runner above must not need pytest)

NAMES = list(load_package().NAMES)
HAVE_TORCH = importlib.util.find_spec("torch") is not None
_cache: dict[str, dict] = {}


def results_for(framework: str) -> dict:
    """Run every scenario under ``framework`` in a subprocess, once per test session."""
    if framework not in _cache:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "results.json"
            env = dict(os.environ, PYTHONHASHSEED="0")
            proc = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), framework, str(out)],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
            if proc.returncode != 0 or not out.exists():
                _cache[framework] = {"crash": f"runner for {framework} exited {proc.returncode}:\n"
                                              f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"}
            else:
                _cache[framework] = json.loads(out.read_text(encoding="utf-8"))
    data = _cache[framework]
    if "crash" in data:
        pytest.fail(data["crash"])
    return data


def assert_scenario_ok(framework: str, name: str) -> list[str]:
    entry = results_for(framework)["results"][name]
    if entry["error"] is not None:
        pytest.fail(f"{name}.run() raised under {framework}:\n{entry['error']}", pytrace=False)
    first, second = entry["traces"]
    assert first == second, (f"{name}: two runs under {framework} gave different traces "
                             "(nondeterminism, or a hook leaked from an earlier scenario)")
    if entry["check_error"] is not None:
        pytest.fail(f"{name}.check() fails under {framework}:\n{entry['check_error']}\n"
                    "trace:\n" + "\n".join(first), pytrace=False)
    return first


def test_registry_matches_files():
    pkg = load_package()
    files = sorted(p.stem for p in PACKAGE_DIR.glob("c[0-9]*.py"))
    assert sorted(pkg.NAMES) == files, "every spec/scenarios/cNN_*.py must be listed in NAMES"
    assert len(set(n.split("_")[0] for n in pkg.NAMES)) == len(pkg.NAMES), "duplicate cNN number"
    recorded = sorted(p.stem for p in pkg.TORCH_TRACES.glob("*.json"))
    assert recorded == sorted(pkg.NAMES), \
        "every scenario needs one PyTorch recording: python tools/record_torch_traces.py"


@pytest.mark.parametrize("name", NAMES)
def test_scenario_module_shape(name):
    mod = importlib.import_module(f"{load_package().__name__}.{name}")
    assert isinstance(mod.CLAIM, str) and mod.CLAIM.strip()
    assert isinstance(mod.WHY, str) and mod.WHY.strip()
    assert mod.VERDICT in load_package().VERDICTS, mod.VERDICT
    assert callable(mod.run) and callable(mod.check)
    assert mod.SOURCES, "say where the claim is made (SOURCES)"
    for text, url in mod.SOURCES:
        assert isinstance(text, str) and text.strip(), "each source says what the page claims"
        assert re.fullmatch(r"https://[^\s\"'<>()]+", url), f"not a public https address: {url!r}"
    source = (PACKAGE_DIR / f"{name}.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import torch|from torch\b|import minigrad|from minigrad\b)",
                         source, re.M), "scenarios must use only the module passed to run()"


@pytest.mark.torch
@pytest.mark.parametrize("name", NAMES)
def test_verdict_under_torch(name):
    if not HAVE_TORCH:
        pytest.skip("torch is not installed (pip install -e '.[torch]')")
    trace = assert_scenario_ok("torch", name)
    assert trace == load_package().recorded_torch_trace(name), (
        f"spec/torch_traces/{name}.json is stale (PyTorch now gives another trace): run "
        f"python tools/record_torch_traces.py {name}, then re-execute its notebook")


@pytest.mark.parametrize("name", NAMES)
def test_minigrad_matches_torch(name):
    data = results_for("minigrad")
    assert not data["torch_imported"], "running the scenarios under minigrad imported torch"
    trace = assert_scenario_ok("minigrad", name)
    assert trace == load_package().recorded_torch_trace(name), \
        f"{name}: minigrad's trace differs from PyTorch's (spec/torch_traces/{name}.json)"


def test_notebooks_up_to_date():
    notebooks = list(SPEC.glob("c[0-9]*.ipynb"))
    if not notebooks:
        pytest.skip("spec notebooks not generated yet: python tools/make_spec_notebooks.py")
    pytest.importorskip("nbformat")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "make_spec_notebooks.py"), "--check"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        "spec notebooks or spec/README.md are stale; run python tools/make_spec_notebooks.py "
        "and re-execute:\n" + proc.stdout + proc.stderr)


def test_notebooks_run_from_root_or_spec():
    """JupyterLab and nbval start a notebook's kernel in spec/; other front ends (VS Code,
    a kernel started at the repository root) do not. A spec notebook's code must run
    from both places and find PyTorch's recording."""
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(SPEC / f"{NAMES[0]}.ipynb", as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    for cwd in (ROOT, SPEC):
        proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, f"{NAMES[0]}.ipynb fails when started in {cwd}:\n{proc.stderr}"
        assert "identical to PyTorch 2.13: True" in proc.stdout, proc.stdout
