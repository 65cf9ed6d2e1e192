"""Activation checkpointing: identical gradients, recompute once per backward pass,
and a clearly lower peak of traced memory for a deep MLP."""
import gc
import tracemalloc

import numpy as np
import pytest

import minigrad
from minigrad import nn
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential


def _mlp(depth=8, width=16, dropout=0.0):
    minigrad.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
        if dropout:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers)


def _grads(model, x, run):
    model.zero_grad()
    x.grad = None
    minigrad.manual_seed(7)
    run(model, x).sum().backward()
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


def test_identical_gradients_with_dropout():
    model = _mlp(dropout=0.2)       # dropout: the recomputation must draw the same mask
    x = minigrad.randn(5, 16, requires_grad=True)
    plain = _grads(model, x, lambda m, x: m(x))
    per_layer = _grads(model, x, lambda m, x: checkpoint(m, x, use_reentrant=False))
    reentrant = _grads(model, x, lambda m, x: checkpoint(m, x, use_reentrant=True))
    segments = _grads(model, x, lambda m, x: checkpoint_sequential(m, 3, x, use_reentrant=False))
    for a, b, c, d in zip(plain, per_layer, segments, reentrant):
        assert np.array_equal(a, b) and np.array_equal(a, c) and np.array_equal(a, d)


def test_pack_keeps_no_tensor_and_recomputes_once_per_pass():
    calls = []

    def fn(x):
        calls.append(1)
        return (x.exp() * x).tanh()

    x = minigrad.randn(4, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=False)
    node = y.grad_fn
    assert not isinstance(node._raw_saved_result._packed, minigrad.Tensor)
    assert len(calls) == 1
    y.sum().backward(retain_graph=True)
    assert len(calls) == 2                   # one recomputation for the whole pass
    y.sum().backward()
    assert len(calls) == 3                   # and one more for the second pass
    with minigrad.no_grad():
        expected = (x.exp() * x).tanh()
    assert np.allclose(x.grad.detach().numpy(),
                       2 * (1 - expected.detach().numpy() ** 2) * (x.exp() * (1 + x)).detach().numpy())


def test_inner_hooks_do_not_leak():
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
    x = minigrad.randn(3, requires_grad=True)
    checkpoint(lambda x: x.exp(), x, use_reentrant=False).sum().backward()
    assert minigrad.autograd.graph.current_saved_tensors_hooks() is None


def test_use_reentrant_left_out_warns_and_is_reentrant():
    x = minigrad.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda x: x.exp(), x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([nn.Tanh(), nn.Tanh()], 2, x)


def test_reentrant_runs_a_nested_backward_with_the_outer_state_intact():
    """The inner pass has its own graph task; the outer one's callbacks, grad mode and
    task id are the same before and after it."""
    from minigrad.autograd import engine
    seen = []
    x = minigrad.randn(4, requires_grad=True)

    def fn(x):
        h = x.exp()
        if h.requires_grad:
            h.register_hook(lambda g: seen.append(("inner", engine.current_graph_task_id())))
        return h * x

    y = checkpoint(fn, x, use_reentrant=True)
    loss = y.sum()
    loss.grad_fn.register_prehook(lambda go: seen.append(("outer", engine.current_graph_task_id()))
                                  or minigrad.autograd.Variable._execution_engine.queue_callback(
                                      lambda: seen.append(("callback", engine.current_graph_task_id()))))
    x.register_hook(lambda g: seen.append(("x", engine.current_graph_task_id(), minigrad.is_grad_enabled())))
    loss.backward()
    (outer, a), (inner, b), (xh, c, grad_on), (cb, d) = seen
    assert (outer, inner, xh, cb) == ("outer", "inner", "x", "callback")
    assert a == c == d != b and not grad_on
    xv = x.detach().numpy()
    assert np.allclose(x.grad.numpy(), np.exp(xv) * (1 + xv))
    assert engine.current_graph_task_id() == -1


def test_reentrant_refuses_grad_and_warns_without_grad_inputs():
    x = minigrad.randn(3, requires_grad=True)
    y = checkpoint(lambda x: x.exp(), x, use_reentrant=True)
    with pytest.raises(RuntimeError,
                       match="^When use_reentrant=True, torch.utils.checkpoint is incompatible"):
        minigrad.autograd.grad(y.sum(), x)
    with pytest.warns(UserWarning,
                      match="^None of the inputs have requires_grad=True. Gradients will be None$"):
        out = checkpoint(lambda x: x.exp(), minigrad.ones(2), use_reentrant=True)
    assert not out.requires_grad
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: scale$"):
        checkpoint(lambda x, scale: x, x, use_reentrant=True, scale=2)


def test_non_reentrant_recomputation_stops_after_the_last_saved_tensor():
    trail = []

    def fn(x):
        h = x.exp()             # saves its result: the only saved tensor
        trail.append("after exp")
        return h + 1

    x = minigrad.randn(3, requires_grad=True)
    checkpoint(fn, x, use_reentrant=False).sum().backward()
    assert trail == ["after exp"]       # the recomputation stopped inside exp


def _peak(run):
    model = _mlp(depth=24, width=64)
    x = minigrad.randn(512, 64, requires_grad=True)
    gc.collect()
    tracemalloc.start()
    try:
        run(model, x).sum().backward()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_checkpointing_lowers_peak_memory():
    plain = _peak(lambda m, x: m(x))
    checkpointed = _peak(lambda m, x: checkpoint_sequential(m, 5, x, use_reentrant=False))
    # 24 layers of [512, 64] activations vs 5 segment inputs plus one segment recomputed.
    assert checkpointed < 0.65 * plain, (checkpointed, plain)


def _recompute_trace(T, early_stop):
    """What runs again in backward: the checkpointed function's steps, printed as they run."""
    from_checkpoint = T.utils.checkpoint
    steps = []

    def fn(x):
        steps.append("exp")
        y = x.exp()
        steps.append("sin")
        z = y.sin()
        steps.append("end")        # saves nothing after the last saving op
        return z * 1

    x = T.tensor([0.5, 1.0], requires_grad=True)
    with from_checkpoint.set_checkpoint_early_stop(early_stop):
        out = from_checkpoint.checkpoint(fn, x, use_reentrant=False)
    steps.append("backward")
    out.sum().backward()
    return steps, [round(v, 6) for v in x.grad.tolist()]


@pytest.mark.parametrize("early_stop", [True, False])
def test_recomputation_stops_once_every_saved_tensor_is_back(early_stop):
    steps, _ = _recompute_trace(minigrad, early_stop)
    rerun = ["exp", "sin"] if early_stop else ["exp", "sin", "end"]
    assert steps == ["exp", "sin", "end", "backward"] + rerun


@pytest.mark.parametrize("early_stop", [True, False])
def test_early_stop_matches_torch(early_stop):
    pytest.importorskip("torch")
    import torch.utils.checkpoint
    assert _recompute_trace(minigrad, early_stop) == _recompute_trace(torch, early_stop)
