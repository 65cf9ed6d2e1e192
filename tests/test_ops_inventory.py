"""docs/ops.md: every op PyTorch tests (OpInfo, ModuleInfo) and every public name of its op
namespaces, each covered, left out for a reason, or missing (``tools/ops_inventory.py``).

These tests fail when docs/ops.md is stale (regenerate it with
``python tools/ops_inventory.py``), check that the scan of the test files counts real
uses only, that every left-out reason is one of the groups, and that the tool stops
loudly when minigrad does not import. Skipped without torch.
"""
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
TOOL = REPO_ROOT / "tools" / "ops_inventory.py"
# one xdist worker for the sweep and docs/ops.md's check: PyTorch's databases are imported once
pytestmark = pytest.mark.xdist_group("opinfo")


@pytest.fixture(scope="module")
def tool():
    pytest.importorskip("torch")
    pytest.importorskip("expecttest")
    spec = importlib.util.spec_from_file_location("ops_inventory", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def inventory(tool):
    return tool.Inventory()


def test_ops_md_is_current(tool, inventory):
    current = tool.OUTPUT.read_text(encoding="utf-8") if tool.OUTPUT.exists() else ""
    assert current == tool.render(inventory), "docs/ops.md is stale: run python tools/ops_inventory.py"


def test_the_inventory_lists_pytorchs_ops_and_names(tool, inventory):
    names = [row["name"] for row in inventory.names]
    assert names == sorted(set(names)), "one row per name, sorted"
    for expected in ("torch.acos", "torch.Tensor.add_", "torch.nn.functional.conv2d", "torch.nn.Linear",
                     "torch.linalg.det", "torch.special.erf", "torch.float32"):
        assert expected in names
    for not_api in ("torch.nn.functional.Optional", "torch.nn.functional.math",
                    "torch.linalg.common_notes", "torch.special.Tensor", "torch.TYPE_CHECKING"):
        assert not_api not in names
    entries = {row["name"] for row in inventory.ops + inventory.modules}
    assert {"add", "div:trunc_rounding", "nn.functional.conv2d", "nn.Linear"} <= entries
    assert len(inventory.ops) > 650 and len(inventory.modules) > 100
    rows = inventory.names + inventory.ops + inventory.modules
    assert {row["status"] for row in rows} <= set(tool.STATUSES)


def test_every_left_out_reason_is_a_group(tool, inventory):
    sys.path.insert(0, str(REPO_ROOT / "tests" / "opinfo"))
    import opinfo_groups
    groups = tuple(opinfo_groups.REASONS.values())
    for row in inventory.names + inventory.ops + inventory.modules:
        if row["status"] == "left out":
            assert row["note"].startswith(groups), row
            assert "not yet" not in row["note"], row


def test_only_real_uses_in_test_files_count(tool, tmp_path):
    """A name in a comment, a string or a docstring is no use; an attribute reached from
    minigrad, a from-import, a fixture that returns minigrad and a method call are."""
    path = tmp_path / "test_sample.py"
    path.write_text('"""mg.acos is documented here."""\n'
                    "import minigrad as mg\n"
                    "from minigrad.nn import functional as F\n"
                    "from minigrad import zeros\n\n\n"
                    "def T():\n    return mg\n\n\n"
                    "def test_x(T):\n"
                    "    # mg.asin would be nice\n"
                    '    text = "mg.atan(x)"\n'
                    "    y = mg.exp(zeros(2)) + F.relu(T.sin(zeros(1)))\n"
                    "    return y.cosh(), text\n", encoding="utf-8")
    uses = tool._file_uses(path, {"cosh", "acos", "asin"})
    assert {"torch.exp", "torch.zeros", "torch.nn.functional.relu", "torch.sin", "torch.Tensor.cosh"} <= uses
    assert not uses & {"torch.acos", "torch.asin", "torch.atan", "torch.Tensor.acos", "torch.Tensor.asin"}


def test_the_tool_stops_loudly_when_minigrad_does_not_import(tmp_path):
    """A copy of the tool in a checkout whose minigrad raises on import: exit status 2, the
    reason on stderr, no docs/ops.md written."""
    (tmp_path / "tools").mkdir()
    shutil.copy(TOOL, tmp_path / "tools" / TOOL.name)
    (tmp_path / "minigrad").mkdir()
    (tmp_path / "minigrad" / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    r = subprocess.run([sys.executable, str(tmp_path / "tools" / TOOL.name), "--check"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "minigrad does not import" in r.stderr and "broken on purpose" in r.stderr
    assert not (tmp_path / "docs").exists()
