"""Layers, functional ops and losses: values and gradients against PyTorch, node
names, gradcheck in float64 (also through double backward), and the models' repr."""
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


# --- gradcheck (float64) ----------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"padding": (1, 0), "dilation": 2}])
def test_conv2d_gradcheck(kw):
    x, w, b = t64(2, 2, 5, 6), t64(3, 2, 3, 2), t64(3)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kw), (x, w, b))


def test_conv2d_double_backward_gradcheck():
    # The conv's backward formulas are minigrad ops (col2im / im2col), so the
    # gradient of the gradient is right too.
    x, w = t64(1, 2, 4, 4), t64(2, 2, 3, 3)

    def grad_wrt_x(x, w):
        with minigrad.enable_grad():        # gradcheck's finite differences run under no_grad
            y = F.conv2d(x, w, padding=1)
            (gx,) = minigrad.autograd.grad((y * y).sum(), x, create_graph=True)
        return gx
    assert gradcheck(grad_wrt_x, (x, w))


@pytest.mark.parametrize("kw", [{"padding": 1}, {"stride": 2, "padding": (1, 2), "dilation": (2, 1)}])
def test_conv2d_second_derivatives(kw):
    """The convolution's gradients are ops too (im2col and col2im with the batch last),
    so a create_graph backward through them is right to second order."""
    assert gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, **kw), (t64(2, 2, 5, 6), t64(3, 2, 3, 2), t64(3)))


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "stride": 1}])
def test_max_pool2d_gradcheck(kw):
    x = t64(2, 3, 6, 5)
    assert gradcheck(lambda x: F.max_pool2d(x, **kw), (x,))


def test_unfold_fold_gradcheck():
    x = t64(1, 2, 5, 5)
    assert gradcheck(lambda x: F.unfold(x, 3, padding=1, stride=2), (x,))
    c = t64(1, 8, 9)
    assert gradcheck(lambda c: F.fold(c, (4, 4), 2, stride=1), (c,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_gradcheck(reduction):
    logits, target = t64(5, 4), minigrad.tensor([0, 3, 1, 1, 2])
    assert gradcheck(lambda x: F.cross_entropy(x, target, reduction=reduction), (logits,))
    a, b = t64(3, 4), t64(3, 4)
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), (a, b))


def test_linear_and_layer_norm_gradcheck():
    x, w, b = t64(4, 3), t64(2, 3), t64(2)
    assert gradcheck(F.linear, (x, w, b))
    g, beta = t64(3), t64(3)
    assert gradcheck(lambda x, g, beta: F.layer_norm(x, (3,), g, beta), (x, g, beta))


# --- node names -------------------------------------------------------------------------

def test_node_names():
    x = minigrad.randn(2, 1, 8, 8, requires_grad=True)
    assert nn.Conv2d(1, 2, 3)(x).grad_fn.name() == "ConvolutionBackward0"
    assert nn.MaxPool2d(2)(x).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    lin = nn.Linear(3, 2)
    y = lin(minigrad.randn(4, 3, requires_grad=True))
    assert y.grad_fn.name() == "AddmmBackward0"
    assert y.grad_fn._saved_mat1.shape == (4, 3) and y.grad_fn._saved_mat2.shape == (3, 2)
    assert nn.Linear(3, 2, bias=False)(minigrad.randn(4, 3)).grad_fn.name() == "MmBackward0"
    logits = minigrad.randn(3, 4, requires_grad=True)
    assert nn.CrossEntropyLoss()(logits, minigrad.tensor([0, 1, 2])).grad_fn.name() == "NllLossBackward0"
    assert nn.MSELoss()(logits, minigrad.zeros(3, 4)).grad_fn.name() == "MseLossBackward0"
    assert F.unfold(x, 2).grad_fn.name() == "Im2ColBackward0"
    assert F.layer_norm(logits, (4,)).grad_fn._saved_weight is None


def test_dropout_uses_seeded_generator_and_eval_is_identity():
    d = nn.Dropout(0.5)
    x = minigrad.ones(1000)
    minigrad.manual_seed(3)
    a = d(x)
    minigrad.manual_seed(3)
    b = d(x)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    assert set(np.unique(a.detach().numpy())) == {0.0, 2.0}
    assert 0.4 < (a.detach().numpy() == 0).mean() < 0.6
    d.eval()
    assert d(x) is x


def test_linear_init_bounds():
    lin = nn.Linear(16, 4)
    assert np.abs(lin.weight.detach().numpy()).max() <= 0.25
    assert np.abs(lin.bias.detach().numpy()).max() <= 0.25
    conv = nn.Conv2d(2, 3, 3)
    assert np.abs(conv.weight.detach().numpy()).max() <= 1 / np.sqrt(18)


# --- against PyTorch ------------------------------------------------------------------------



def _torch():
    return pytest.importorskip("torch")


def _run_both(fn, arrays, grad_out_seed=1):
    torch = _torch()
    outs, grads = [], []
    for lib in (torch, minigrad):
        ts = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        y = fn(lib, *ts)
        g = np.random.default_rng(grad_out_seed).standard_normal(tuple(y.shape)).astype(np.float32)
        (y * lib.tensor(g)).sum().backward()
        outs.append(y.detach().numpy().copy())
        grads.append([t.grad.numpy().copy() for t in ts if t.requires_grad])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)
    for gm, gt in zip(grads[1], grads[0]):
        np.testing.assert_allclose(gm, gt, rtol=1e-5, atol=1e-5)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"padding": (2, 1), "dilation": 2}])
def test_conv2d_matches_torch(kw):
    _run_both(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, **kw),
              [f32(2, 3, 7, 6), f32(4, 3, 3, 2), f32(4)])


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 3, "stride": 1, "padding": 1},      # windows overlap
                                {"kernel_size": 2, "stride": 1, "dilation": 2}])
def test_max_pool2d_matches_torch(kw):
    _run_both(lambda lib, x: lib.nn.functional.max_pool2d(x, **kw), [f32(2, 3, 7, 6)])


def test_max_pool2d_picks_as_torch_scans_a_window():
    """Ties keep the first position, a NaN wins and the last NaN is the one picked; with
    overlapping windows a position picked twice gets both gradients."""
    torch = _torch()
    nan = float("nan")
    planes = [[[[3.0, 3.0], [1.0, 3.0]]], [[[1.0, nan], [nan, 2.0]]], [[[nan, 0.0], [5.0, 1.0]]]]
    x = np.array(planes, dtype=np.float32)
    picked = []
    for lib in (torch, minigrad):
        values, indices = lib.nn.functional.max_pool2d(lib.tensor(x), 2, return_indices=True)
        picked.append((values.numpy().tolist(), indices.numpy().tolist()))
    assert str(picked[1]) == str(picked[0])
    x = f32(1, 1, 4, 4)
    grads = []
    for lib in (torch, minigrad):
        t = lib.tensor(x, requires_grad=True)
        lib.nn.functional.max_pool2d(t, 3, stride=1, padding=1).sum().backward()
        grads.append(t.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    assert grads[1].max() > 1         # the largest value was picked by several windows


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction):
    target = np.array([0, 3, 1, 1, 2])
    _run_both(lambda lib, x, t: lib.nn.functional.cross_entropy(x, t, reduction=reduction),
              [f32(5, 4) * 30, target])       # large logits: the log-softmax must be stable
    _run_both(lambda lib, a, b: lib.nn.functional.mse_loss(a, b, reduction=reduction), [f32(3, 4), f32(3, 4)])


def test_linear_and_layer_norm_match_torch():
    _run_both(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [f32(5, 3), f32(2, 3), f32(2)])
    _run_both(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (3,), w, b), [f32(5, 3), f32(3), f32(3)])


def test_module_reprs_match_torch():
    torch = _torch()
    reprs = []
    for lib in (torch, minigrad):
        n = lib.nn
        net = n.Sequential(n.Conv2d(1, 4, 3, padding=1), n.ReLU(), n.MaxPool2d(2), n.Flatten(),
                           n.Sequential(n.Linear(64, 10), n.Tanh(), n.Sigmoid()), n.Dropout(0.1),
                           n.MSELoss(), n.CrossEntropyLoss(), n.ModuleList([n.Linear(2, 2), n.Linear(2, 2)]))
        reprs.append(repr(net))
    assert reprs[1] == reprs[0]


def _embedding_trace(T):
    """Embedding with padding_idx and scale_grad_by_freq: output, node, gradients, double
    backward (whose node PyTorch names EmbeddingDenseBackwardBackward0)."""
    emb = T.nn.Embedding(4, 2, padding_idx=1, scale_grad_by_freq=True)
    with T.no_grad():
        emb.weight.copy_(T.arange(8, dtype=T.float32).reshape(4, 2))
    idx = T.tensor([[1, 3, 3], [0, 1, 2]])
    out = emb(idx)
    (out * T.arange(12.0).reshape(2, 3, 2)).sum().backward()
    w = T.arange(6.0).reshape(3, 2).requires_grad_()
    g, = T.autograd.grad(T.nn.functional.embedding(T.tensor([0, 0, 2]), w, padding_idx=2).pow(2).sum(),
                         w, create_graph=True)
    g.sum().backward()
    return [repr(emb), out.tolist(), out.grad_fn.name(), out.grad_fn._saved_padding_idx,
            out.grad_fn._saved_weight_sym_argsize_0, emb.weight.grad.tolist(),
            g.grad_fn.name(), g.tolist(), w.grad.tolist()]


def test_embedding_padding_row_gets_no_gradient():
    trace = _embedding_trace(minigrad)
    assert trace[0] == "Embedding(4, 2, padding_idx=1, scale_grad_by_freq=True)"
    assert trace[5] == [[6.0, 7.0], [0.0, 0.0], [10.0, 11.0], [3.0, 4.0]]   # row 3 twice: halved
    assert trace[6] == "EmbeddingDenseBackwardBackward0"


def test_embedding_matches_torch():
    torch = pytest.importorskip("torch")
    assert _embedding_trace(minigrad) == _embedding_trace(torch)


def test_adaptive_avg_pool2d_is_global_mean_and_says_what_it_lacks():
    x = minigrad.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
    y = nn.AdaptiveAvgPool2d(1)(x)
    assert y.tolist() == [[[[7.5]]]] and y.grad_fn.name() == "MeanBackward1"
    assert repr(nn.AdaptiveAvgPool2d((1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))"
    with pytest.raises(NotImplementedError, match="output_size=1 only"):
        F.adaptive_avg_pool2d(x, 2)


def test_softmax_without_dim_warns_as_pytorch_and_picks_its_dim():
    import warnings
    x = minigrad.ones(2, 3)
    for fn, name in ((minigrad.nn.functional.softmax, "softmax"),
                     (minigrad.nn.functional.log_softmax, "log_softmax")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(x)
        assert [str(w.message) for w in caught] == [
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument."]
        assert caught[0].filename == __file__            # the caller's line, as in PyTorch
        np.testing.assert_allclose(out.numpy(), fn(x, 1).numpy())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        minigrad.nn.Softmax()(x)
    # nn.Softmax's warning names the module call machinery, as PyTorch's names its own
    assert caught[0].filename.endswith("module.py") and "minigrad" in caught[0].filename
