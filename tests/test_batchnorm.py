"""BatchNorm1d / BatchNorm2d and F.batch_norm: gradcheck in float64 (first and second
order, training and evaluation), and against PyTorch: values, gradients, running
statistics, buffers and state_dict, reprs, the backward node and its saved values,
error messages."""
import numpy as np
import pytest

import minigrad
from minigrad import nn
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.nn import functional as F

rng = np.random.default_rng(0)


def t64(*shape, requires_grad=True):
    return minigrad.tensor(rng.standard_normal(shape), dtype=minigrad.float64,
                           requires_grad=requires_grad)


# --- gradcheck (float64, no torch needed) --------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (3, 3, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck_and_double_backward(shape, training):
    x, w, b = t64(*shape), t64(3), t64(3)
    rm = minigrad.tensor(rng.standard_normal(3), dtype=minigrad.float64)
    rv = minigrad.tensor(rng.random(3) + 0.5, dtype=minigrad.float64)

    def fn(x, w, b):
        # no running statistics in training: the function must not change between calls
        return F.batch_norm(x, None if training else rm, None if training else rv, w, b, training)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_batch_norm_without_affine_gradcheck():
    x = t64(6, 2)
    assert gradgradcheck(lambda x: F.batch_norm(x, None, None, training=True), (x,))


def test_module_gradcheck_float64():
    bn = nn.BatchNorm2d(2).double()
    assert bn.running_mean.dtype == minigrad.float64 and bn.num_batches_tracked.dtype == minigrad.int64
    assert gradcheck(lambda x: bn(x), (t64(3, 2, 2, 2),))
    bn.eval()
    assert gradgradcheck(lambda x: bn(x), (t64(3, 2, 2, 2),))


def test_running_statistics_by_hand():
    x = np.array([[1.0, 10.0], [3.0, 20.0], [8.0, 0.0]], dtype=np.float32)
    bn = nn.BatchNorm1d(2, momentum=0.5)
    y = bn(minigrad.tensor(x))
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(y.detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.5 * mean, rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.5 + 0.5 * x.var(0, ddof=1), rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1
    bn.reset_running_stats()
    assert bn.running_mean.tolist() == [0, 0] and bn.running_var.tolist() == [1, 1]
    assert bn.num_batches_tracked.item() == 0


def test_momentum_none_is_the_cumulative_average():
    bn = nn.BatchNorm1d(1, momentum=None)
    batches = [np.array([[1.0], [3.0]]), np.array([[10.0], [20.0]]), np.array([[-4.0], [0.0]])]
    for b in batches:
        bn(minigrad.tensor(b.astype(np.float32)))
    np.testing.assert_allclose(bn.running_mean.numpy(), [np.mean([b.mean() for b in batches])], rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), [np.mean([b.var(ddof=1) for b in batches])], rtol=1e-6)


# --- against PyTorch ----------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch")


def _run_module(lib, cls, shape, kw, train, steps=3):
    bn = getattr(lib.nn, cls)(shape[1], **kw)
    with lib.no_grad():
        if bn.weight is not None:
            bn.weight.copy_(lib.tensor(np.linspace(0.5, 1.5, shape[1]).astype(np.float32)))
        if bn.bias is not None:
            bn.bias.copy_(lib.tensor(np.linspace(-1, 1, shape[1]).astype(np.float32)))
    bn.train(train)
    r = np.random.default_rng(1)
    steps_out = []
    for i in range(steps):
        x = lib.tensor((r.standard_normal(shape) * (i + 1) + i).astype(np.float32), requires_grad=True)
        y = bn(x)
        g = r.standard_normal(shape).astype(np.float32)
        (y * lib.tensor(g)).sum().backward()
        steps_out.append([y.detach().numpy().copy(), x.grad.numpy().copy(), y.grad_fn.name()]
                         + [p.grad.numpy().copy() for p in bn.parameters()])
        bn.zero_grad()
    state = [(k, str(v.dtype).split(".")[-1], v.numpy().copy()) for k, v in bn.state_dict().items()]
    names = ([n for n, _ in bn.named_parameters()], [n for n, _ in bn.named_buffers()])
    return steps_out, state, repr(bn), names


CONFIGS = [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False},
           {"bias": False}, {"eps": 1e-3, "momentum": 0.3}]


@pytest.mark.torch
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                       ("BatchNorm2d", (4, 3, 5, 2))])
@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: ",".join(f"{k}={v}" for k,
                                                                v in kw.items()) or "default")
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_module_matches_torch(cls, shape, kw, train):
    torch = _torch()
    ref = _run_module(torch, cls, shape, kw, train)
    got = _run_module(minigrad, cls, shape, kw, train)
    for step_ref, step_got in zip(ref[0], got[0]):
        assert step_got[2] == step_ref[2]
        for a, b in zip(step_got[:2] + step_got[3:], step_ref[:2] + step_ref[3:]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=5e-6)
    assert [(k, d) for k, d, _ in got[1]] == [(k, d) for k, d, _ in ref[1]]
    for (_, _, a), (_, _, b) in zip(got[1], ref[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got[2:] == ref[2:]


@pytest.mark.torch
@pytest.mark.parametrize("training", [True, False])
def test_double_backward_matches_torch(training):
    torch = _torch()
    x0, w0, g0 = (rng.standard_normal(s).astype(np.float32) for s in ((4, 3, 2, 2), (3,), (4, 3, 2, 2)))
    rm0, rv0 = rng.standard_normal(3).astype(np.float32), (rng.random(3) + 0.5).astype(np.float32)
    results = []
    for lib in (torch, minigrad):
        x, w = lib.tensor(x0, requires_grad=True), lib.tensor(w0, requires_grad=True)
        y = lib.nn.functional.batch_norm(x, lib.tensor(rm0), lib.tensor(rv0), w, None, training)
        gx, gw = lib.autograd.grad((y * lib.tensor(g0)).sum(), (x, w), create_graph=True)
        ((gx * gx).sum() + (gw * gw).sum()).backward()
        results.append([gx.detach().numpy(), gw.detach().numpy(), x.grad.numpy(), w.grad.numpy()])
    for a, b in zip(results[1], results[0]):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)


@pytest.mark.torch
def test_node_and_saved_values_match_torch():
    torch = _torch()
    seen = []
    for lib in (torch, minigrad):
        out = []
        for affine in (True, False):
            bn = lib.nn.BatchNorm2d(3, affine=affine)
            x = lib.arange(48.).reshape(2, 3, 4, 2).requires_grad_()
            for mode in ("train", "eval"):
                getattr(bn, mode)()
                packed = []
                with lib.autograd.graph.saved_tensors_hooks(
                        lambda t: (packed.append(tuple(t.shape)), t)[1], lambda t: t):
                    y = bn(x)
                n = y.grad_fn
                out.append((mode, n.name(), [a for a in dir(n) if a.startswith("_saved")], packed,
                            n._saved_eps, n._saved_training,
                            [None if f is None else f.name() for f, _ in n.next_functions],
                            n._saved_result1.tolist(), np.round(n._saved_result2.tolist(), 5).tolist(),
                            n._saved_running_mean is None, n._saved_weight is None,
                            bn.running_mean._version, bn.num_batches_tracked._version,
                            np.round(y[0, :, 0, 0].tolist(), 4).tolist()))
        bn = lib.nn.BatchNorm1d(3, track_running_stats=False).eval()
        n = bn(lib.ones(2, 3, requires_grad=True)).grad_fn
        out.append((n._saved_training, n._saved_running_mean, list(bn.state_dict())))
        seen.append(out)
    assert seen[1] == seen[0]


def _error(fn):
    try:
        fn()
    except Exception as e:     # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.torch
def test_errors_match_torch():
    torch = _torch()
    cases = [
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)),
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3, 1)),
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)),
        lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(3)),
        lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3, 4)),
        lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 4, 4, 4)),
        lambda lib: lib.nn.BatchNorm2d(3, affine=False)(lib.ones(2, 4, 4, 4)),
        lambda lib: lib.nn.BatchNorm2d(3, track_running_stats=False)(lib.ones(2, 4, 4, 4)),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), None, None, training=False),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 4), None, lib.ones(3), training=False),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 4), lib.ones(3), None, training=False),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 4), lib.ones(4), None, training=False),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 4), lib.ones(4), lib.ones(4), lib.ones(4),
                                                 lib.ones(3), training=True),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(3), training=True,
                                                 eps=0),
        lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(3), eps=-1.0),
    ]
    for case in cases:   # the module name is the one printed difference allowed
        kind, message = _error(lambda: case(minigrad))
        assert (kind, message.replace("minigrad.", "torch.")) == _error(lambda: case(torch))


@pytest.mark.torch
def test_reset_and_load_state_dict_match_torch():
    torch = _torch()
    seen = []
    x0 = rng.standard_normal((6, 2)).astype(np.float32)
    for lib in (torch, minigrad):
        bn = lib.nn.BatchNorm1d(2)
        bn(lib.tensor(x0))
        other = lib.nn.BatchNorm1d(2)
        keys = other.load_state_dict(bn.state_dict())
        loaded = [np.round(v.tolist(), 5).tolist() for v in other.state_dict().values()]
        with lib.no_grad():
            bn.weight.mul_(3.0)
        bn.reset_parameters()
        reset = [v.tolist() for v in bn.state_dict().values()]
        missing = _error(lambda: other.load_state_dict({k: v for k, v in bn.state_dict().items()
                                                         if k != "running_var"}))
        seen.append((repr(keys), loaded, reset, missing))
    assert seen[1] == seen[0]
