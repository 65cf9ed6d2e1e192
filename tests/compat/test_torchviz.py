"""torchviz draws the same graph from minigrad as from PyTorch.

``torchviz.make_dot(y, params=..., show_attrs=True, show_saved=True).source`` walks
``grad_fn``, ``next_functions``, ``variable``, every ``_saved_*`` attribute (values and
saved tensors), ``_is_view()``/``_base`` and the parameters' names and sizes. Run under
``python -m minigrad.run`` (torchviz does ``import torch`` itself), it must give the same
dot source as under PyTorch once the node names, which are ``id()``s, are renumbered in
order of first appearance.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
GRAPHS = HERE / "torchviz_graphs.py"
NAMES = ["mlp", "cnn", "expression"]
_ID = re.compile(r"\b\d{9,}\b")  # id() of a node or tensor: the node's name in the dot source


def renumber_ids(source):
    """Replace each id by its first-appearance index: ``140230...`` -> ``id0``, ..."""
    ids = {}
    return _ID.sub(lambda m: "id%d" % ids.setdefault(m.group(), len(ids)), source)


def test_renumber_ids_is_consistent():
    src = "\t140001234567 [label=a]\n\t140007654321 -> 140001234567\n\t(3, 2)\n"
    assert renumber_ids(src) == "\tid0 [label=a]\n\tid1 -> id0\n\t(3, 2)\n"


@pytest.fixture(scope="module")
def sources():
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("torchviz") is None:
        pytest.skip("needs torch and torchviz (pip install -e '.[torch]')")
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    result = {}
    for framework, cmd in (("torch", [str(GRAPHS)]), ("minigrad", ["-m", "minigrad.run", str(GRAPHS)])):
        p = subprocess.run([sys.executable, *cmd], capture_output=True, text=True, env=env,
                           cwd=str(REPO_ROOT), timeout=300)
        result[framework] = (json.loads(p.stdout) if p.returncode == 0 else None, p.stderr)
    assert result["torch"][0] is not None, f"torchviz_graphs.py fails under torch:\n{result['torch'][1]}"
    return result


@pytest.mark.torch
@pytest.mark.parametrize("name", NAMES)
def test_make_dot_source_is_the_same(sources, name):
    expected = renumber_ids(sources["torch"][0][name])
    got, stderr = sources["minigrad"]
    assert got is not None, f"torchviz_graphs.py fails under minigrad:\n{stderr[-3000:]}"
    assert renumber_ids(got[name]) == expected


@pytest.mark.torch
def test_torchviz_sees_a_torch_new_enough_for_saved_tensors(sources):
    """torchviz warns that showing attributes and saved tensors "requires PyTorch version
    >= 1.9" when ``torch.__version__`` is older; minigrad reports the release it mirrors."""
    _, stderr = sources["minigrad"]
    assert "requires PyTorch version" not in stderr, stderr[-2000:]
