"""minigrad.trace.side_by_side.same_pass_in_torch: the lessons' optional "same pass in real PyTorch" cell."""
import importlib.util

import matplotlib
import pytest

from minigrad.trace import comparable
from minigrad.trace.side_by_side import same_pass_in_torch

matplotlib.use("Agg")


def _two_hooks(lib):
    def hook1(grad):
        return grad * 2

    def hook2(grad):
        return grad + 1
    x = lib.tensor([1.0], requires_grad=True)
    x.register_hook(hook1)
    x.register_hook(hook2)
    return (x * 3).sum(), {x: "x"}


def test_without_torch_it_prints_how_to_install_and_returns_none(monkeypatch, capsys):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real_find_spec(name, *a))
    assert same_pass_in_torch(_two_hooks) is None
    assert capsys.readouterr().out == ('Real PyTorch is not installed here: pip install -e ".[torch]" '
                                       "to compare with it.\n")


def test_with_torch_it_compares_and_draws(capsys):
    pytest.importorskip("torch")
    import matplotlib.pyplot as plt
    ours, theirs = same_pass_in_torch(_two_hooks, ", hook1 before hook2 in both")
    assert comparable(ours) == comparable(theirs)
    assert [e.hook.__name__ for e in theirs if e.kind == "tensor_hook"] == ["hook1", "hook2"]
    out = capsys.readouterr().out
    assert out.startswith("torch 2.")
    assert out.endswith(f"the same {len(theirs)} events, hook1 before hook2 in both\n")
    plt.close("all")


def test_a_pass_that_differs_is_an_assertion_error():
    torch = pytest.importorskip("torch")

    def differs(lib):
        loss, labels = _two_hooks(lib)
        if lib is torch:
            loss = (torch.tensor([1.0], requires_grad=True) * 2).sum()
        return loss, labels
    with pytest.raises(AssertionError, match="torch ran this pass differently"):
        same_pass_in_torch(differs)
