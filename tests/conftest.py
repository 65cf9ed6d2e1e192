"""Test-session settings shared by every test file.

tools/test-all runs this folder with ``pytest -n 2 --dist loadgroup``: a test with an
``xdist_group`` mark shares a worker with the rest of its group, and every other test
is grouped with its own file (what ``--dist loadfile`` would do), so module-level
fixtures such as a trained model or a built virtual environment are made once.
The differential scenarios group per scenario, so they spread over both workers.
"""
import pytest


@pytest.hookimpl(tryfirst=True)      # before xdist reads the marks into node ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
