"""In-place ops on views and item assignment inside a graph (PyTorch's CopySlices).

Each case is ``fn(T, x, y)`` written once against the framework module ``T``
(``minigrad`` or ``torch``): it makes a non-leaf from ``x``, writes into a view of it
or assigns into it, and returns an output. Checked two ways:

1. ``minigrad.autograd.gradcheck`` on float64 inputs (no PyTorch needed): the
   gradients through ``CopySlices``, ``AsStridedBackward0`` and ``IndexPutBackward0``
   agree with finite differences, and ``gradgradcheck`` for the second order;
2. with torch installed: the same values, gradients and node names (two levels of
   ``next_functions``) as PyTorch.
"""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck


def _relu_slice(T, x, y):
    h = x * 2
    h[:, :2].relu_()
    return h


def _mul_view_by_tensor(T, x, y):
    h = x * 1.5
    h[1:].mul_(y)
    return h * h


def _setitem_row(T, x, y):
    h = x.sin()
    h[0] = y
    return h


def _setitem_scalar_then_tensor(T, x, y):
    h = x * x
    h[:, 1] = 0.5
    h[1, 2] = y.sum()
    return h.exp()


def _mask_assign(T, x, y):
    h = x * 3
    h[x > 0.3] = 0
    return h * x


def _index_add(T, x, y):
    h = x + 1
    idx = T.tensor([2, 0])
    h[:, idx] += y[:2].unsqueeze(1) if h.shape[0] == 2 else y[:2]
    return h


def _transpose_chain(T, x, y):
    h = x * 2
    h.t()[1:].tanh_()
    return h.sum(0)


def _view_then_base_use(T, x, y):
    h = x * 0.5
    v = h.view(6)
    v[1:4].mul_(3)
    return (v * h.view(6)).sum() + h.sum()


def _stale_view(T, x, y):
    h = x * 2
    v = h[0]
    h.mul_(y.sum())
    return v * v


def _view_of_view_sigmoid(T, x, y):
    h = x - 1
    v = h[1]
    v[1:].sigmoid_()
    return v * 2 + h[0]


def _value_broadcast_into_view(T, x, y):
    h = x * 1.0
    h[:, 1:] = y[:2]
    return h ** 2


CASES = {
    "relu_on_slice": _relu_slice,
    "mul_view_by_tensor": _mul_view_by_tensor,
    "setitem_row": _setitem_row,
    "setitem_scalar_then_tensor": _setitem_scalar_then_tensor,
    "mask_assign": _mask_assign,
    "index_add": _index_add,
    "transpose_chain": _transpose_chain,
    "view_then_base_use": _view_then_base_use,
    "stale_view": _stale_view,
    "view_of_view_sigmoid": _view_of_view_sigmoid,
    "value_broadcast_into_view": _value_broadcast_into_view,
}


def _inputs():
    rng = np.random.default_rng(11)
    x = rng.uniform(0.2, 1.5, size=(2, 3)) * rng.choice([-1.0, 1.0], size=(2, 3))
    y = rng.uniform(0.5, 1.5, size=3)
    return x, y


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn = CASES[name]
    x, y = _inputs()
    xs = (minigrad.tensor(x, dtype=minigrad.float64, requires_grad=True),
          minigrad.tensor(y, dtype=minigrad.float64, requires_grad=True))
    assert gradcheck(lambda a, b: fn(minigrad, a, b), xs)
    assert gradgradcheck(lambda a, b: fn(minigrad, a, b), xs)


def _names(node, depth=2):
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return [node.name(), [_names(n, depth - 1) for n, _ in node.next_functions]]


def _run(T, fn, x, y):
    a = T.tensor(x, requires_grad=True)
    b = T.tensor(y, requires_grad=True)
    out = fn(T, a, b)
    weights = T.tensor(np.linspace(-1.0, 2.0, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype)
    (out * weights).sum().backward()
    grads = [None if t.grad is None else t.grad.detach().numpy().copy() for t in (a, b)]
    return out.detach().numpy().copy(), grads, _names(out.grad_fn, 3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_torch(name):
    torch = pytest.importorskip("torch")
    x, y = _inputs()
    out_m, grads_m, names_m = _run(minigrad, CASES[name], x, y)
    out_t, grads_t, names_t = _run(torch, CASES[name], x, y)
    np.testing.assert_allclose(out_m, out_t, rtol=1e-5, atol=1e-6)
    for gm, gt in zip(grads_m, grads_t):
        assert (gm is None) == (gt is None)
        if gm is not None:
            np.testing.assert_allclose(gm, gt, rtol=1e-5, atol=1e-5)
    assert names_m == names_t


def test_hooks_follow_pytorch_rule():
    """Before the in-place: stays with the old node (the view's is orphaned, the base's
    still runs); after: on the new node; retain_grad follows the tensor."""
    calls = []
    x = minigrad.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    h = x * 1
    v = h[0]
    v.register_hook(lambda g: calls.append("view before"))
    h.register_hook(lambda g: calls.append("base before"))
    v.retain_grad()
    v.relu_()
    v.register_hook(lambda g: calls.append("view after"))
    h.register_hook(lambda g: calls.append("base after"))
    (h.sum() + v.sum()).backward()
    assert calls == ["view after", "base after", "base before"]
    assert v.grad.tolist() == [1.0, 1.0]
    assert type(h.grad_fn).__name__ == "CopySlices"
    assert h.grad_fn.name() == "torch::autograd::CopySlices"
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert x.grad.tolist() == [[2.0, 0.0], [1.0, 1.0]]


def test_errors():
    x = minigrad.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        x[0, 1] = 3.0
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element"):
        (x * 1).expand(3, 2).add_(1)
    with minigrad.no_grad():
        v = (x * 1)[0]
    h = x * 1
    with minigrad.no_grad():
        v = h[0]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode"):
        v.mul_(2)


def test_a_view_made_under_no_grad_requires_grad_but_gets_no_gradient():
    """As PyTorch: a leaf that requires grad, with no AccumulateGrad behind it; the
    same cases against PyTorch in scenarios/v06_views_made_under_no_grad.py."""
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with minigrad.no_grad():
        v = x[:2]
    assert (v.requires_grad, v.is_leaf, v.grad_fn) == (True, True, None)
    assert repr(v) == "tensor([1., 2.], requires_grad=True)"
    out = v * 3
    assert out.grad_fn.next_functions == ((None, 0), (None, 0))
    out.sum().backward()
    assert v.grad is None and x.grad is None
    assert v.requires_grad_(False).requires_grad          # its base still requires grad
    with pytest.raises(RuntimeError, match="^Output 0 of Slice is a view of a view which was created in "
                                           "no_grad mode and is being modified inplace with grad mode"):
        v[:1].mul_(2)


@pytest.mark.parametrize("mode, words", [
    (minigrad.no_grad, "no_grad mode and its base or another view of its base has been modified "
                       "inplace with grad mode enabled"),
    (minigrad.inference_mode, "inference mode and its base or another view of its base has been "
                              "modified inplace in normal mode")])
def test_a_view_made_under_no_grad_refuses_its_grad_fn_once_changed_in_place(mode, words):
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with mode():
        v = x[:2]
    with minigrad.no_grad():
        x.mul_(2)
    for _ in range(2):                                    # every read, not only the first
        with pytest.raises(RuntimeError, match=f"^A view was created in {words}"):
            v.grad_fn
    with pytest.raises(RuntimeError, match=f"^A view was created in {words}"):
        v + 1
    assert repr(v) == "tensor([2., 4.], grad_fn=<Invalid>)"
    assert v.detach().tolist() == [2.0, 4.0]
