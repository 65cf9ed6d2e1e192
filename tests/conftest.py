"""Test-session settings shared by every test file.

tools/test-all runs this folder with ``pytest -n 2 --dist loadgroup``: a test with an
``xdist_group`` mark shares a worker with the rest of its group, and every other test
is grouped with its own file (what ``--dist loadfile`` would do), so module-level
fixtures such as a trained model or a built virtual environment are made once.
The differential scenarios group per scenario, so they spread over both workers.

Tests that need a module of an extra skip when it is not installed
(``pytest.importorskip``, or a skip that names the module): most compare with PyTorch.
In CI (``CI=true``) every extra is installed, so there such a skip is a failure instead,
as the Binder and browser tests fail there when their tools are missing: a CI run
without torch would otherwise pass with most of the suite skipped. Outside CI they stay
skips.

The OpInfo sweep (``tests/opinfo``) writes its summary line to
``build/opinfo/summary.txt``; the run that wrote it prints it at the end.
"""
import importlib.util
import os
import re
import time
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# module -> the pyproject extra that installs it, for the modules tests skip without
EXTRA_MODULES = {"torch": "torch", "torchviz": "torch", "expecttest": "torch", "sklearn": "test",
                 "ipywidgets": "lessons", "nbformat": "instructor"}
# the OpInfo sweep's summary line (tests/opinfo), shown at the end of the run that wrote it
OPINFO_SUMMARY = Path(__file__).resolve().parents[1] / "build" / "opinfo" / "summary.txt"
_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)      # before xdist reads the marks into node ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


def missing_extra_fails_in_ci(report):
    """Turn ``report`` (a test's or a module's) into a failure when, in CI, it was skipped
    for a module of an extra that cannot be found."""
    if not (IN_CI and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    missing = [name for name in EXTRA_MODULES
               if re.search(rf"\b{name}\b", reason) and importlib.util.find_spec(name) is None]
    if missing:
        extras = sorted({EXTRA_MODULES[name] for name in missing})
        report.outcome = "failed"
        report.longrepr = (f"{reason}\nCI=true, so this is a failure: install "
                           f"{', '.join(missing)} with pip install -e '.[{','.join(extras)}]'.")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    missing_extra_fails_in_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    missing_extra_fails_in_ci(outcome.get_result())


def pytest_sessionstart(session):
    session.config.stash[_STARTED] = time.time()


def pytest_terminal_summary(terminalreporter, config):
    """The OpInfo sweep's summary line, when this run made it (in any xdist worker)."""
    started = config.stash.get(_STARTED, None)
    if started is not None and OPINFO_SUMMARY.exists() and OPINFO_SUMMARY.stat().st_mtime >= started:
        terminalreporter.write_sep("=", "OpInfo sweep (tests/opinfo)")
        terminalreporter.write_line(OPINFO_SUMMARY.read_text(encoding="utf-8").strip())
