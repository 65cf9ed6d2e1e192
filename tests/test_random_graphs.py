"""Random small expression graphs: same gradients as PyTorch, same node order.

hypothesis draws a little program: a few leaves of small shapes that all broadcast to
(2, 3), in half the programs first gathered by one node (``stack``/``cat`` of up to
five distinct leaves, so several leaves become ready at once), then 3-12 ops from a
safe set (no op is evaluated at a point where it is not differentiable, no value can
overflow), each taking its operands from everything computed so far, so intermediate
tensors are often used several times. The program
ends in a sum. It is built identically in minigrad and torch (float64), and:

* every leaf gets the same ``.grad`` (``np.allclose``);
* the engine runs the nodes in the same order: minigrad's ``record_events()``
  ``node_start`` events against a torch pre-hook on every node reachable from the
  root. This exercises the ready queue (newest node first, AccumulateGrad as soon as
  it is ready, libstdc++'s heap order for ties) and the dependency counting for
  tensors used several times.

The examples are derandomized so CI sees the same graphs every run.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.autograd.engine import record_events

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

# (2, 3) twice as likely: same-shape leaves feed stack/cat directly, so several
# AccumulateGrad nodes become ready at once and the heap's tie order shows.
LEAF_SHAPES = [(2, 3), (2, 3), (3,), (2, 1), (1, 3), ()]

# Constants (no grad) for matrix products that keep the (2, 3) broadcast shape.
_rng = np.random.default_rng(1234)
M33 = _rng.uniform(-1, 1, size=(3, 3)) / 3
M22 = _rng.uniform(-1, 1, size=(2, 2)) / 2


def _const(T, array):
    return T.tensor(array, dtype=T.float64)


def _full(a):
    """``a`` broadcast to (2, 3); no ExpandBackward0 when it already has that shape."""
    return a if tuple(a.shape) == (2, 3) else a.expand(2, 3)


# name -> (arity, fn(T, *operands)). Every result still broadcasts to (2, 3).
OPS = {
    "add": (2, lambda T, a, b: a + b),
    "sub": (2, lambda T, a, b: a - b),
    "mul": (2, lambda T, a, b: a * b),
    "div": (2, lambda T, a, b: a / (b.sigmoid() + 0.5)),
    "maximum": (2, lambda T, a, b: T.maximum(a, b + 1e-3)),
    "where": (2, lambda T, a, b: T.where(T.tensor(np.array([True, False, True])), a, b)),
    "tanh": (1, lambda T, a: a.tanh()),
    "sigmoid": (1, lambda T, a: a.sigmoid()),
    "sin": (1, lambda T, a: a.sin()),
    "cos": (1, lambda T, a: a.cos()),
    "exp_bounded": (1, lambda T, a: a.tanh().exp()),
    "neg": (1, lambda T, a: -a),
    "scale": (1, lambda T, a: a * 0.5),
    "square": (1, lambda T, a: a ** 2),
    "self_mul": (1, lambda T, a: a * a),       # one tensor, two edges to the same node
    "mean_keepdim0": (1, lambda T, a: a.mean(0, keepdim=True) if a.dim() == 2 else a.mean()),
    "sum_last_keepdim": (1, lambda T, a: a.sum(-1, keepdim=True) if a.dim() else a * 1),
    "softmax": (1, lambda T, a: a.softmax(-1) if a.dim() else a.sigmoid()),
    "expand": (1, lambda T, a: a.expand(2, 3)),
    "mm_right": (1, lambda T, a: a.expand(2, 3) @ _const(T, M33)),
    "mm_left": (1, lambda T, a: _const(T, M22) @ a.expand(2, 3)),
    "transpose_twice": (1, lambda T, a: a.expand(2, 3).transpose(0, 1).transpose(1, 0)),
    "clone": (1, lambda T, a: a.clone()),
    "stack_sum": (2, lambda T, a, b: T.stack([_full(a), _full(b)]).sum(0)),
    "cat_slice": (2, lambda T, a, b: T.cat([_full(a), _full(b)], 1)[:, 1:4]),
    "stack3_sum": (3, lambda T, a, b, c: T.stack([_full(a), _full(b), _full(c)]).sum(0)),
    "cat4_mean": (4, lambda T, *xs: T.cat([_full(x) for x in xs], 0).reshape(4, 2, 3).mean(0)),
    "stack5_mean": (5, lambda T, *xs: T.stack([_full(x) for x in xs], 1).mean(1)),
    "index_rows": (1, lambda T, a: a.expand(2, 3)[[1, 0]]),
}
OP_NAMES = sorted(OPS)


# Ops fed by several operands at once: when those are distinct (2, 3) leaves, their
# AccumulateGrad nodes become ready together (up to five, where the heap's order is
# neither FIFO nor LIFO).
GATHERING_OPS = ("stack_sum", "stack3_sum", "cat4_mean", "stack5_mean")


@st.composite
def programs(draw):
    n_leaves = draw(st.integers(1, 5))
    shapes = [draw(st.sampled_from(LEAF_SHAPES)) for _ in range(n_leaves)]
    seed = draw(st.integers(0, 2 ** 32 - 1))
    steps = []
    n_values = n_leaves
    if n_leaves > 1 and draw(st.booleans()):
        name = draw(st.sampled_from([n for n in GATHERING_OPS if OPS[n][0] <= n_leaves]))
        operands = tuple(draw(st.permutations(range(n_leaves)))[:OPS[name][0]])
        for i in operands:
            shapes[i] = (2, 3)           # no ExpandBackward0 between the leaf and the op
        steps.append((name, operands))
        n_values += 1
    for _ in range(draw(st.integers(3, 12))):
        name = draw(st.sampled_from(OP_NAMES))
        arity = OPS[name][0]
        # Bias towards recent values (a chain), but any earlier value may be reused.
        operands = tuple(draw(st.one_of(st.just(n_values - 1), st.integers(0, n_values - 1)))
                         for _ in range(arity))
        steps.append((name, operands))
        n_values += 1
    return shapes, seed, steps


def build(T, program):
    """Run the program in framework ``T``; return (leaves, loss)."""
    shapes, seed, steps = program
    rng = np.random.default_rng(seed)
    leaves = [T.tensor(rng.uniform(-1, 1, size=s), dtype=T.float64, requires_grad=True)
              for s in shapes]
    values = list(leaves)
    used = set()
    for name, operands in steps:
        values.append(OPS[name][1](T, *(values[i] for i in operands)))
        used.update(operands)
    # End in a sum over the last value and every value nobody consumed (leaves too),
    # so every leaf is reached.
    loss = values[-1].sum()
    for i, v in enumerate(values[:-1]):
        if i not in used:
            loss = loss + v.sum()
    return leaves, loss


def reachable(loss):
    """Every node reachable from the root (the root first)."""
    nodes, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return nodes


def labeller(loss, leaves):
    """A framework-independent label for each node. Names alone would hide a swap of two
    ``TanhBackward0`` nodes, or of two leaves' AccumulateGrad nodes (all called
    ``torch::autograd::AccumulateGrad``, all with the same sequence number): a node is
    labelled with its name and its rank in creation order, an AccumulateGrad node with
    the index of its leaf."""
    leaf_index = {id(t): i for i, t in enumerate(leaves)}
    ops = sorted((n for n in reachable(loss) if not hasattr(n, "variable")),
                 key=lambda n: n._sequence_nr())
    rank = {n: i for i, n in enumerate(ops)}

    def label(node):
        if hasattr(node, "variable"):
            return f"{node.name()}[leaf {leaf_index[id(node.variable)]}]"
        return f"{node.name()}#{rank[node]}"
    return label


def torch_node_order(loss, leaves):
    """A pre-hook on every node reachable from the root; returns the list they fill."""
    label, order = labeller(loss, leaves), []
    for node in reachable(loss):
        node.register_prehook(lambda grads, node=node: order.append(label(node)))
    return order


def _describe(program):
    shapes, seed, steps = program
    return f"leaves={shapes} seed={seed} steps={steps}"


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_graph_matches_torch(program):
    m_leaves, m_loss = build(minigrad, program)
    t_leaves, t_loss = build(torch, program)
    assert np.allclose(m_loss.item(), t_loss.item(), rtol=1e-10, atol=1e-12), _describe(program)

    t_order = torch_node_order(t_loss, t_leaves)
    t_loss.backward()
    label = labeller(m_loss, m_leaves)
    with record_events() as events:
        m_loss.backward()
    m_order = [label(e.node) for e in events if e.kind == "node_start"]
    assert m_order == t_order, _describe(program)

    for i, (m, t) in enumerate(zip(m_leaves, t_leaves)):
        assert (m.grad is None) == (t.grad is None), f"leaf {i}: " + _describe(program)
        if m.grad is not None:
            assert m.grad.shape == tuple(t.grad.shape)
            assert np.allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12), \
                f"leaf {i}: " + _describe(program)


def test_a_fixed_diamond_with_reuse():
    """A hand-written instance of the property, so a failure has a readable example:
    b is used by three nodes, a by two, and two leaves meet in one AccumulateGrad tie."""
    program = ([(2, 3), (3,), (2, 1)], 7,
               [("mul", (0, 1)), ("tanh", (3,)), ("add", (3, 4)), ("self_mul", (1,)),
                ("sub", (5, 3)), ("stack_sum", (7, 2)), ("mm_right", (8,))])
    test_random_graph_matches_torch.hypothesis.inner_test(program)
