"""The smaller PyTorch APIs of issue 27: ``__version__``, ``sort``, ``index_add_``,
``abs(t)``, the logits BCE and L1 losses, ``SavedTensor.data`` and
``IndexBackward0._raw_saved_indices``; each compared with torch where it is installed
(the differential scenarios ``a0*`` compare whole traces)."""
import importlib.metadata
import tomllib
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad.torch_version import TorchVersion

REPO_ROOT = Path(__file__).resolve().parents[1]


def both(fn):
    torch = pytest.importorskip("torch")
    return fn(minigrad), fn(torch)


# --- __version__ -----------------------------------------------------------------------------

def test_version_is_the_mirrored_pytorch_release_and_compares_as_a_version():
    v = minigrad.__version__
    assert isinstance(v, TorchVersion) and isinstance(v, str) and v == "2.13.0"
    assert v >= (1, 9) and v >= "1.9" and v == (2, 13) and v < "10.0" and not v < "2.13"
    assert TorchVersion("2.13.0") < "2.13.0+cpu" and TorchVersion("2.13.0rc1") < (2, 13)


def test_minigrads_own_release_is_the_package_metadata():
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        own = tomllib.load(f)["project"]["version"]
    assert importlib.metadata.version("minigrad") == own != minigrad.__version__


def test_torch_version_compares_as_minigrads():
    pytest.importorskip("torch")
    from torch.torch_version import TorchVersion as Theirs
    others = [(1, 9), "1.9", "2.13", (2, 13, 0), "2.13.0+cpu", "2.13.0a1", "2.13.0.dev1", "v2.13.0",
              "10.0", "parrot", "2.12.9", (3,)]
    for text in ["2.13.0", "2.0.0rc1", "1.10.0", "2.13.0+cpu"]:
        for other in others:
            for op in ("__lt__", "__le__", "__eq__", "__gt__", "__ge__", "__ne__"):
                mine = getattr(TorchVersion(text), op)(other)
                theirs = getattr(Theirs(text), op)(other)
                assert mine == theirs, (text, op, other)


# --- sort, index_add_, abs, losses, saved values ---------------------------------------------

def test_sort_sends_each_gradient_back_where_its_value_came_from():
    x = minigrad.tensor([3.0, 1.0, 2.0, 1.0], requires_grad=True)
    s = x.sort(descending=True)
    assert isinstance(s, minigrad.return_types.sort) and s.indices.tolist() == [0, 2, 1, 3]
    assert s.values.grad_fn.name() == "SortBackward0"
    assert x.sort(stable=True).values.grad_fn.name() == "SortBackward1"
    (s.values * minigrad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 2.0, 4.0]


def test_index_add_adds_repeated_rows_and_gathers_the_source_gradient():
    a = minigrad.zeros(3, requires_grad=True)
    src = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone().index_add_(0, minigrad.tensor([0, 2, 0]), src, alpha=2)
    assert b.tolist() == [8.0, 0.0, 4.0] and b.grad_fn.name() == "IndexAddBackward0"
    (b * minigrad.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert a.grad.tolist() == [1.0, 10.0, 100.0] and src.grad.tolist() == [2.0, 200.0, 2.0]
    with pytest.raises(IndexError, match="index out of range in self"):
        minigrad.zeros(3).index_add_(0, minigrad.tensor([3]), minigrad.ones(1))


def test_abs_of_a_tensor_is_its_abs_op():
    y = abs(minigrad.tensor([-1.5, 2.0], requires_grad=True))
    assert y.tolist() == [1.5, 2.0] and y.grad_fn.name() == "AbsBackward0"


def test_bce_with_logits_is_stable_and_saves_its_weights():
    F = minigrad.nn.functional
    x = minigrad.tensor([100.0, -100.0, 0.0], requires_grad=True)
    t = minigrad.tensor([0.0, 1.0, 1.0])
    pos_weight = minigrad.tensor([1.0, 1.0, 2.0])
    loss = F.binary_cross_entropy_with_logits(x, t, reduction="none", pos_weight=pos_weight)
    assert np.allclose(loss.tolist(), [100.0, 100.0, 2 * np.log(2)])
    assert loss.grad_fn._saved_weight is None and loss.grad_fn._saved_pos_weight.tolist() == [1.0, 1.0, 2.0]
    loss.sum().backward()
    assert np.allclose(x.grad.tolist(), [1.0, -1.0, -1.0])
    criterion = minigrad.nn.BCEWithLogitsLoss(pos_weight=minigrad.ones(2))
    assert criterion.state_dict()["pos_weight"].tolist() == [1, 1]


def test_l1_loss_is_made_of_ops():
    loss = minigrad.nn.L1Loss()(minigrad.tensor([1.0, -2.0], requires_grad=True), minigrad.zeros(2))
    assert loss.item() == 1.5 and loss.grad_fn.name() == "MeanBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "AbsBackward0"


def test_saved_tensor_data_is_what_is_stored():
    u = minigrad.tensor([1.0, 2.0], requires_grad=True)
    w = minigrad.tensor([3.0, 4.0], requires_grad=True)
    raw = (u * w).grad_fn._raw_saved_other
    assert raw.data is w
    e = u.exp()
    out = e.grad_fn._raw_saved_result
    assert out.data.grad_fn is None and not out.data.requires_grad
    out.register_hooks(lambda t: "packed", lambda p: minigrad.ones(2))
    assert out.data == "packed"
    e.sum().backward()
    assert out.data is None


def test_a_saved_none_refuses_hooks_as_none_before_and_after_backward():
    """PyTorch's SavedVariable for an input that needs no gradient says "value None" on
    register_hooks whether or not backward has run (it was never anything to free)."""
    x = minigrad.ones(3, requires_grad=True)
    y = x * minigrad.ones(3)            # mul saves self only for other's gradient: None here
    raw = y.grad_fn._raw_saved_self
    for when in ("before", "after"):
        with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor with value None"):
            raw.register_hooks(lambda t: t, lambda t: t)
        if when == "before":
            y.sum().backward()
    assert y.grad_fn._saved_self is None


def test_index_nodes_save_one_saved_tensor_per_indexed_dimension():
    packed = []
    x = minigrad.ones(2, 3, requires_grad=True)
    hooks = minigrad.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.tolist()) or t, lambda t: t)
    with hooks:
        y = x[:, minigrad.tensor([0, 2])]
    raws = y.grad_fn._raw_saved_indices
    assert packed == [[0, 2]] and len(raws) == 2 and raws[0].data is None
    assert y.grad_fn._saved_indices[1].tolist() == [0, 2]
    assert "_raw_saved_indices" in dir(y.grad_fn) and "_saved_indices" in dir(y.grad_fn)
