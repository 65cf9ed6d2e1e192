"""Nodes look like PyTorch's to code that inspects them, op by op.

Graph walkers and debugging code print ``grad_fn``, read ``type(node).__name__``,
``dir(node)`` and the ``_saved_`` attributes (torchviz's ``show_saved=True`` prints every
one of them), and walk the graph a ``create_graph=True`` backward builds. For every case
of the op table (``test_ops_gradcheck.CASES``) and for the ``nn.functional`` ops, the same
lambda runs through both frameworks and the two graphs are walked in step:

- the node classes: name and ``repr`` (``<MulBackward0 object at 0x...>``);
- the set of ``_saved_`` names and each value: tensors by value, sizes, strides, dims and
  flags exactly (including PyTorch's habit of showing a dim of -1 as 2**64 - 1);
- the node names of the double-backward graph (``TanhBackwardBackward0`` ...).
"""
import re

import numpy as np
import pytest

import minigrad
from test_ops_gradcheck import (CASES, KNOWN_NAME_DIFFERENCES, Case, _as_tuple, _inputs, names_of_graph,
                                rand)


def _nn_cases():
    def F(T):
        return T.nn.functional

    labels = [1, 0, 2, 1]
    return [
        Case("F.linear", lambda T, x, w, b: F(T).linear(x, w, b), rand((4, 3), (2, 3), (2,))),
        Case("F.linear-nobias", lambda T, x, w: F(T).linear(x, w), rand((4, 3), (2, 3))),
        Case("F.conv2d", lambda T, x, w, b: F(T).conv2d(x, w, b, padding=1),
             rand((1, 2, 5, 5), (3, 2, 3, 3), (3,))),
        Case("F.max_pool2d", lambda T, x: F(T).max_pool2d(x, 2), rand((1, 2, 4, 4))),
        Case("F.mse_loss", lambda T, x, y: F(T).mse_loss(x, y), rand((3, 4), (3, 4))),
        Case("F.cross_entropy", lambda T, z: F(T).cross_entropy(z, T.tensor(labels)), rand((4, 3))),
        Case("F.softmax", lambda T, z: F(T).softmax(z, dim=1), rand((2, 3))),
        Case("F.log_softmax", lambda T, z: F(T).log_softmax(z, dim=0), rand((2, 3))),
        Case("F.layer_norm", lambda T, x, w, b: F(T).layer_norm(x, (3,), w, b), rand((2, 3), (3,), (3,))),
        Case("F.relu", lambda T, x: F(T).relu(x), rand((2, 3))),
    ]


CASES_WITH_NN = list(CASES) + _nn_cases()


def _params(cases, known):
    """``cases`` as pytest params, those in ``known`` (case id -> reason) as strict xfails."""
    ids = {case.id for case in cases}
    assert set(known) <= ids, f"not case ids: {sorted(set(known) - ids)}"
    return [pytest.param(case, id=repr(case), marks=[pytest.mark.xfail(strict=True, reason=known[case.id])]
                         if case.id in known else []) for case in cases]


def _saved(node):
    return sorted(n for n in dir(node) if n.startswith("_saved_"))


def _plain(value):
    """A saved value as plain Python/numpy for comparison."""
    if hasattr(value, "detach"):
        return ("tensor", value.detach().numpy())
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return value


def _same(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        if a[:1] == ("tensor",) and b[:1] == ("tensor",):
            return a[1].shape == b[1].shape and np.allclose(a[1], b[1], equal_nan=True)
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a == b or (a != a and b != b)
    return a == b and type(a) is type(b)


def _walk_in_step(m_outs, t_outs):
    """Yield (minigrad node, torch node) pairs, following next_functions index by index."""
    stack = [(m.grad_fn, t.grad_fn) for m, t in zip(m_outs, t_outs) if t.grad_fn is not None]
    seen = set()
    while stack:
        m, t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        yield m, t
        assert len(m.next_functions) == len(t.next_functions), t.name()
        for (mn, _), (tn, _) in zip(m.next_functions, t.next_functions):
            if tn is not None:
                stack.append((mn, tn))


@pytest.mark.torch
@pytest.mark.parametrize("case", _params(CASES_WITH_NN, KNOWN_NAME_DIFFERENCES))
def test_saved_names_and_values_as_torch(case):
    torch = pytest.importorskip("torch")
    m_outs = _as_tuple(case.fn(minigrad, *_inputs(case, minigrad)))
    t_outs = _as_tuple(case.torch_fn(torch, *_inputs(case, torch)))
    for m, t in _walk_in_step(m_outs, t_outs):
        where = t.name()
        assert _saved(m) == _saved(t), f"{where}: saved names differ"
        for name in _saved(t):
            mv, tv = _plain(getattr(m, name)), _plain(getattr(t, name))
            assert _same(mv, tv), f"{where}.{name}: minigrad {mv!r}, torch {tv!r}"


def _double_backward_graph(T, case, fn):
    inputs = _inputs(case, T)
    outs = _as_tuple(fn(T, *inputs))
    loss = None
    for o in outs:
        term = (o * T.ones_like(o)).sum() if o.is_floating_point() else None
        loss = term if loss is None else loss + term
    grads = T.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
    return names_of_graph([g for g in grads if g is not None and g.grad_fn is not None])


# Where minigrad writes a derivative as several ops and PyTorch calls one kernel (or the
# other way round), the double-backward graph has other nodes; the values agree
# (test_ops_gradcheck's gradgradcheck). docs/differences.md lists these. Keyed by exact case
# id and run as strict xfails, as test_trace's KNOWN: a case that comes to equal PyTorch
# fails until it is taken off the list.
COMPOSED = "minigrad writes this derivative as a composition of table ops"
_POW = "pow's exponent derivative: PyTorch masks log(0) with where()"
_INPLACE = "in-place on a non-leaf: PyTorch clones the saved original (CloneBackward0)"
_PROD = "prod with zeros: PyTorch's prod_safe_zeros_backward (cumprod) vs a masked product"
_NORM = "norm's derivative: PyTorch masks the zero-norm case with masked_fill"
_VAR = COMPOSED + " (var/std: PyTorch's var_backward / std_backward)"
KNOWN_DOUBLE_BACKWARD_DIFFERENCES = {
    **{case: _POW for case in ("pow-[2, 3, 4]-[3, 1]", "pow-[3, 1]-[1, 4]", "pow-[3, 4]-[3, 4]",
                               "pow-[4]-[2, 3, 4]", "pow-[]-[2, 3]", "pow-function-[2, 3, 4]-[3, 1]",
                               "pow-function-[3, 1]-[1, 4]", "pow-function-[3, 4]-[3, 4]",
                               "pow-function-[4]-[2, 3, 4]", "pow-function-[]-[2, 3]")},
    **{case: _INPLACE for case in ("mul_-nonleaf", "mul_-nonleaf-broadcast", "mul_-then-add_")},
    "linear-tanh": "mm's mat2 gradient: PyTorch transposes twice (an extra TBackward0)",
    **{case: _PROD for case in ("prod-dim-zeros", "prod-full-one-zero", "prod-full-two-zeros")},
    **{case: _NORM for case in ("norm-dim-1-keepdim", "norm-dim1", "norm-dims(0,2)", "norm-full")},
    **{case: _VAR for case in ("std-dim0-correction0", "std-full", "std-function", "std_mean-dim1-keepdim",
                               "std_mean-full", "std_mean-only-std-used", "var-full", "var_mean-full")},
    "F.conv2d": COMPOSED + " (PyTorch: ConvolutionBackwardBackward0)",
    "F.cross_entropy": COMPOSED + " (PyTorch: NllLossBackwardBackward0)",
    "F.layer_norm": COMPOSED + " (PyTorch: NativeLayerNormBackwardBackward0)",
    **{case: KNOWN_NAME_DIFFERENCES[case] for case in ("matmul-batched", "matmul-batch-broadcast",
                                                       "matmul-2d@3d", "matmul-1d@3d")},
}
# The gradient nodes a create_graph backward makes, in another order than PyTorch's.
KNOWN_CREATION_ORDER_DIFFERENCES = {
    case: "other double-backward nodes: " + KNOWN_DOUBLE_BACKWARD_DIFFERENCES[case]
    for case in ("F.conv2d", "F.layer_norm", "matmul-batch-broadcast", "matmul-2d@3d", "matmul-1d@3d")}


@pytest.mark.torch
@pytest.mark.parametrize("case", _params(CASES_WITH_NN, KNOWN_DOUBLE_BACKWARD_DIFFERENCES))
def test_double_backward_graph_names_as_torch(case):
    torch = pytest.importorskip("torch")
    assert _double_backward_graph(minigrad, case, case.fn) == \
        _double_backward_graph(torch, case, case.torch_fn)


MULTI_INPUT_CASES = [c for c in CASES_WITH_NN if len(c.make(np.random.default_rng(0))) > 1]


def _grad_creation_order(T, case, fn):
    """The order in which a ``create_graph`` backward made the inputs' gradient nodes.

    It numbers them (sequence numbers), and a second backward runs ready nodes highest
    number first: PyTorch's generated nodes work through their inputs alphabetically
    (``other`` before ``self``)."""
    inputs = _inputs(case, T)
    loss = sum((o * T.ones_like(o)).sum() for o in _as_tuple(fn(T, *inputs)) if o.is_floating_point())
    grads = T.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
    made = [(g.grad_fn._sequence_nr(), i) for i, g in enumerate(grads)
            if g is not None and g.grad_fn is not None]
    return [i for _, i in sorted(made)]


@pytest.mark.torch
@pytest.mark.parametrize("case", _params(MULTI_INPUT_CASES, KNOWN_CREATION_ORDER_DIFFERENCES))
def test_double_backward_nodes_are_made_in_torchs_order(case):
    torch = pytest.importorskip("torch")
    assert _grad_creation_order(minigrad, case, case.fn) == \
        _grad_creation_order(torch, case, case.torch_fn)


@pytest.mark.torch
def test_node_classes_print_as_torch():
    torch = pytest.importorskip("torch")

    def shown(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).sum()
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
        texts = [repr(y.grad_fn), str(acc), repr(type(y.grad_fn)), type(acc).__name__,
                 repr(y.grad_fn.next_functions)]
        return [re.sub(r"0x[0-9a-f]+", "0x", t) for t in texts]

    assert shown(minigrad) == shown(torch)


@pytest.mark.parametrize("case", CASES_WITH_NN[:3], ids=repr)
def test_the_comparison_can_fail(case):
    """A node with one extra saved name, or one wrong value, is reported."""
    assert not _same(_plain((2, 3)), _plain((3, 2)))
    assert not _same(_plain(minigrad.tensor([1.0, 2.0])), _plain(minigrad.tensor([1.0, 2.5])))
    assert not _same(1, True)


MASKED_GRADIENT_OPS = {
    "clamp": lambda T, x: x.clamp(-1.0, 1.0),
    "where": lambda T, x: T.where(T.tensor([True, False, True, False]), x, T.tensor(0.5)),
    "masked_fill": lambda T, x: x.masked_fill(T.tensor([False, True, False, True]), 5.0),
}


@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(MASKED_GRADIENT_OPS))
def test_masked_out_gradient_is_plus_zero_and_pytorchs_node(op):
    """clamp's and where's backward are PyTorch's ``where(mask, grad, 0)``, masked_fill's
    ``grad.masked_fill(mask, 0)``: where the mask is off the gradient is +0 even when the
    incoming gradient is negative (a mask product would give -0.0, which prints as
    ``-0.``), and a double-backward graph has PyTorch's node."""
    torch = pytest.importorskip("torch")

    def run(T):
        x = T.tensor([-2.0, 0.5, 3.0, -0.25], requires_grad=True)
        w = T.tensor([-1.0, -2.0, -3.0, -4.0], requires_grad=True)
        g, = T.autograd.grad((MASKED_GRADIENT_OPS[op](T, x) * w).sum(), x, create_graph=True)
        return g.detach().numpy(), type(g.grad_fn).__name__

    (mg, mg_node), (tg, t_node) = run(minigrad), run(torch)
    np.testing.assert_array_equal(mg, tg)
    assert list(np.signbit(mg)) == list(np.signbit(tg)), f"signs of zero: minigrad {mg}, torch {tg}"
    assert mg_node == t_node == ("MaskedFillBackward0" if op == "masked_fill" else "WhereBackward0")
