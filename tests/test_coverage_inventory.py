"""Every hook-related PyTorch API is covered by minigrad or explained (docs/coverage.md).

``tools/coverage_inventory.py`` lists the names from the installed PyTorch (see its
docstring for which) and gives each a status: *covered* (minigrad has it and a
differential script uses it), *left out* (docs/differences.md says why), *untested* or
*missing*. These tests fail when docs/coverage.md is stale (regenerate it with
``python tools/coverage_inventory.py``) and when a name is untested or missing. Skipped
without torch.
"""
import importlib.util
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

@pytest.fixture(scope="module")
def tool():
    pytest.importorskip("torch")
    path = REPO_ROOT / "tools" / "coverage_inventory.py"
    spec = importlib.util.spec_from_file_location("coverage_inventory", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(tool):
    return tool.inventory()


def test_the_inventory_lists_the_hook_apis_of_pytorch(tool, rows):
    names = [name for name, _, _ in rows]
    assert names == sorted(set(names)), "one row per name, sorted"
    for expected in ("torch.autograd.graph.Node", "torch.autograd.functional.vjp",
                     "torch.utils.hooks.RemovableHandle", "torch.nn.Module.register_full_backward_hook",
                     "torch.utils.checkpoint.checkpoint", "torch.optim.Optimizer.state_dict",
                     "torch.nn.modules.module.register_module_forward_hook"):
        assert expected in names
    statuses = {status for _, status, _ in rows}
    assert statuses <= set(tool.STATUSES)


def test_coverage_md_is_current(tool, rows):
    expected = tool.render(rows)
    current = tool.OUTPUT.read_text() if tool.OUTPUT.exists() else ""
    assert current == expected, "docs/coverage.md is stale: run python tools/coverage_inventory.py"


def test_every_name_is_covered_or_explained(rows):
    unexplained = sorted(name for name, status, _ in rows if status in ("untested", "missing"))
    assert not unexplained, (
        "these PyTorch names are in minigrad without a differential test using them, or not in "
        "minigrad at all: use them in a script of tests/differential/scenarios or tests/compat/scripts, "
        "or say why they are left out in docs/differences.md ('PyTorch APIs minigrad leaves out'): "
        f"{unexplained}")


def test_every_reason_names_an_api_of_the_inventory(tool, rows):
    names = [name for name, _, _ in rows]
    for pattern in tool.left_out():
        prefix = pattern[:-1] if pattern.endswith(".*") else None
        assert any(n == pattern or (prefix and n.startswith(prefix)) for n in names), (
            f"docs/differences.md explains {pattern}, which is not a name of the inventory")

