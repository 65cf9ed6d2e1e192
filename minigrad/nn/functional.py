"""``torch.nn.functional`` for minigrad: layers and losses as functions.

The ops PyTorch implements as one kernel (and one backward node) are rows of an op
table here too, in the style of ``minigrad/_ops.py`` and named as there (the op's name,
private here: ``_addmm``, ``_convolution``): ``addmm`` (``AddmmBackward0``,
for ``linear``), ``convolution`` (``ConvolutionBackward0``), ``max_pool2d_with_indices``
(``MaxPool2DWithIndicesBackward0``), ``im2col`` / ``col2im`` (``Im2ColBackward0`` /
``Col2ImBackward0``, i.e. ``unfold`` / ``fold``), ``mse_loss``, ``nll_loss``,
``native_dropout``, ``native_layer_norm`` and ``native_batch_norm``. Forwards are vectorised numpy (the
im2col kernels of ``nn/_im2col.py``: no Python loop over pixels or the batch).
Backward formulas are written with minigrad ops, so ``create_graph=True`` gives
double backward through every one of them: conv's input gradient is a ``col2im`` and
``col2im``'s backward is an ``im2col``, and the other way round.
"""
import math
import warnings

import numpy as np

from .. import _creation, _ops, dtypes, grad_mode as _grad_mode
from .._dispatch import Op as _Op, apply_op as _apply_op
from ..amp import autocast_mode as _autocast_mode
from .._tensor import Tensor as _Tensor
from .._tensor_methods import _as_tensor
from ._im2col import (batch_first as _batch_first, fold as _fold, fold_batch_last as _fold_batch_last,
                      unfold as _unfold,
                      unfold_batch_last as _unfold_batch_last, unfold_output_size as _unfold_output_size,
                      windows as _windows)
from .modules.utils import _pair

__all__ = [
    "linear", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "conv2d", "max_pool2d",
    "unfold", "fold", "mse_loss", "nll_loss", "cross_entropy", "dropout", "layer_norm",
    "batch_norm", "flatten", "embedding", "adaptive_avg_pool2d", "gelu", "l1_loss",
    "binary_cross_entropy_with_logits",
]


def _const(array):
    """A constant tensor (no graph) around a numpy array."""
    return _Tensor._wrap(np.asarray(array))


# --------------------------------------------------------------------------------------
# The op rows
# --------------------------------------------------------------------------------------

def _scaled(t, factor):
    """``t * factor``, or ``t`` itself when the factor is 1 (no ``MulBackward`` node)."""
    return t * factor if factor != 1 else t


def _addmm_forward(bias, mat1, mat2, beta, alpha):
    out = _ops.mm_product(mat1, mat2)
    if alpha != 1:
        out *= alpha
    out += bias if beta == 1 else beta * bias       # in place: no extra full-size temporaries
    return out


_addmm = _Op("addmm", "AddmmBackward0", _addmm_forward,
             ("self", "mat1", "mat2"),
             saves={"mat1": "mat2", "mat2": "mat1"},
             saved_attrs=("alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes",
                          "mat2_sym_strides"),
             grads={"self": lambda g, ctx: _scaled(g, ctx.beta),
                    "mat1": lambda g, ctx: _scaled(g.mm(ctx.mat2.t()), ctx.alpha),
                    # (g.T @ mat1).T rather than mat1.T @ g, as PyTorch's mm_mat2_backward:
                    # mat2 is weight.T, so the weight's gradient comes out contiguous.
                    "mat2": lambda g, ctx: _scaled(g.t().mm(ctx.mat1), ctx.alpha).t()})


def _im2col_forward(x, kernel_size, dilation, padding, stride):
    return _unfold(x, kernel_size, stride, padding, dilation=dilation)


def _col2im_forward(x, output_size, kernel_size, dilation, padding, stride):
    return _fold(x, output_size, kernel_size, stride, padding, dilation=dilation)


def _apply_im2col(x, kernel_size, dilation, padding, stride):
    return _apply_op(_im2col, (x,), {"kernel_size": kernel_size, "dilation": dilation,
                                      "padding": padding, "stride": stride})


def _apply_col2im(x, output_size, kernel_size, dilation, padding, stride):
    return _apply_op(_col2im, (x,), {"output_size": tuple(output_size), "kernel_size": kernel_size,
                                      "dilation": dilation, "padding": padding, "stride": stride})


# unfold and fold are adjoint: each one's backward is the other.
_im2col = _Op("im2col", "Im2ColBackward0", _im2col_forward,
              saved_attrs=("dilation", "kernel_size", "padding", "self_sym_argsize_minus_1",
                           "self_sym_argsize_minus_2", "stride"),
              grads={"self": lambda g, ctx: _apply_col2im(
                  g, (ctx.self_sym_argsize_minus_2, ctx.self_sym_argsize_minus_1), ctx.kernel_size,
                  ctx.dilation, ctx.padding, ctx.stride)})
_col2im = _Op("col2im", "Col2ImBackward0", _col2im_forward,
              saved_attrs=("dilation", "kernel_size", "padding", "stride"),
              grads={"self": lambda g, ctx: _apply_im2col(
                  g, ctx.kernel_size, ctx.dilation, ctx.padding, ctx.stride)})


def _im2col_batch_last_forward(x, kernel_size, dilation, padding, stride):
    return _unfold_batch_last(x, kernel_size, stride, padding, dilation=dilation)


def _col2im_batch_last_forward(x, output_size, batch, kernel_size, dilation, padding, stride):
    return _fold_batch_last(x, output_size, batch, kernel_size, stride, padding, dilation=dilation)


def _apply_im2col_batch_last(x, kernel_size, dilation, padding, stride):
    return _apply_op(_im2col_batch_last, (x,), {"kernel_size": kernel_size, "dilation": dilation,
                                                 "padding": padding, "stride": stride})


def _apply_col2im_batch_last(x, output_size, batch, kernel_size, dilation, padding, stride):
    return _apply_op(_col2im_batch_last, (x,), {"output_size": tuple(output_size), "batch": batch,
                                                 "kernel_size": kernel_size, "dilation": dilation,
                                                 "padding": padding, "stride": stride})


# The convolution's gradients use the same two ops on patches laid out batch last
# (``[C*kh*kw, oh*ow*N]``, see ``unfold_batch_last``): one matrix product covers the
# whole batch, and the copies move runs of ``ow * N`` values. PyTorch's convolution
# backward is one kernel, so only a create_graph backward through a convolution shows
# them (as im2col and col2im nodes).
_im2col_batch_last = _Op(
    "im2col", "Im2ColBackward0", _im2col_batch_last_forward,
    saved_attrs=("dilation", "kernel_size", "padding", "self_sym_sizes", "stride"),
    grads={"self": lambda g, ctx: _apply_col2im_batch_last(
        g, ctx.self_sym_sizes[-2:], ctx.self_sym_sizes[0], ctx.kernel_size, ctx.dilation, ctx.padding,
        ctx.stride)})
_col2im_batch_last = _Op(
    "col2im", "Col2ImBackward0", _col2im_batch_last_forward,
    saved_attrs=("dilation", "kernel_size", "padding", "stride"),
    grads={"self": lambda g, ctx: _apply_im2col_batch_last(
        g, ctx.kernel_size, ctx.dilation, ctx.padding, ctx.stride)})


def _conv_forward(x, weight, bias, stride, padding, dilation, groups, transposed, output_padding):
    n, _, h, w = x.shape
    c_out, _, kh, kw = weight.shape
    cols = _unfold_batch_last(x, (kh, kw), stride, padding, dilation=dilation)  # [C*kh*kw, L*N]
    oh, ow = _unfold_output_size((h, w), (kh, kw), stride, padding, dilation)
    out = _batch_first((weight.reshape(c_out, -1) @ cols).reshape(c_out, oh, ow, n))  # one product
    if bias.size:                                                            # (no bias: an empty one)
        out += bias.reshape(1, c_out, 1, 1)
    return out


def _batch_last(g):
    """The output gradient ``[N, C_out, oh, ow]`` as ``[C_out, oh*ow*N]``, in the two
    copies ``_im2col.batch_last`` explains."""
    n, c = g.shape[0], g.shape[1]
    channels_first = g.reshape(n, c, -1).transpose(0, 1).reshape(c * n, -1)    # copied: [C_out*N, L]
    return channels_first.reshape(c, n, -1).transpose(1, 2).reshape(c, -1)     # copied: [C_out, L*N]


def _conv_grad_input(g, ctx):
    w = ctx.weight
    dcols = w.reshape(w.shape[0], -1).t().mm(_batch_last(g))                # [C*kh*kw, L*N]
    return _apply_col2im_batch_last(dcols, ctx.input.shape[-2:], g.shape[0], tuple(w.shape[-2:]),
                                    ctx.dilation, ctx.padding, ctx.stride)


def _conv_grad_weight(g, ctx):
    w_shape = ctx.weight.shape
    cols = _apply_im2col_batch_last(ctx.input, w_shape[-2:], ctx.dilation, ctx.padding, ctx.stride)
    return _batch_last(g).mm(cols.t()).reshape(w_shape)                     # [C_out, C*kh*kw]


_convolution = _Op("convolution", "ConvolutionBackward0", _conv_forward, ("input", "weight", "bias"),
                   saves={"input": None, "weight": None},   # one formula for all three, as PyTorch's
                   saved_attrs=("bias_sym_sizes_opt", "dilation", "groups", "output_padding",
                                "padding", "stride", "transposed"),
                   grads={"input": _conv_grad_input, "weight": _conv_grad_weight,
                          "bias": lambda g, ctx: g.sum((0, 2, 3))})


def _max_pool_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    stride = stride or kernel_size      # PyTorch keeps stride=None as (), meaning "the kernel size"
    floating = x.dtype.kind == "f"
    pad = -np.inf if floating else np.iinfo(x.dtype).min
    windows = _windows(x, kernel_size, stride, padding, dilation=dilation, pad_value=pad)
    # A running maximum over the kernel offsets, as PyTorch's CPU kernel scans a window:
    # a value replaces the maximum when it is larger or NaN (ties keep the first offset,
    # NaNs the last). Offsets only grow, so the offset that last replaced it is a
    # running maximum too; and np.maximum lets NaN win, as the scan does.
    values, offset = windows[0].copy(), np.zeros(windows.shape[1:], dtype=np.int32)
    for k in range(1, len(windows)):
        candidate = windows[k]
        replaces = candidate > values
        if floating:
            replaces |= np.isnan(candidate)
        np.maximum(offset, replaces * np.int32(k), out=offset)
        np.maximum(values, candidate, out=values)
    return values, _window_to_image(offset, x.shape[-2:], kernel_size, stride, padding, dilation)


def _window_to_image(offset, hw, kernel_size, stride, padding, dilation):
    """Offsets in the kernel window -> flat positions in the image, which is what
    PyTorch's max_pool2d returns as indices: each window's top-left corner plus the
    offset's distance from it."""
    oh, ow = offset.shape[-2:]
    corner = ((np.arange(oh) * stride[0] - padding[0])[:, None] * hw[1]
              + (np.arange(ow) * stride[1] - padding[1])[None, :])
    k = np.arange(kernel_size[0] * kernel_size[1])
    distance = (k // kernel_size[1]) * dilation[0] * hw[1] + (k % kernel_size[1]) * dilation[1]
    return corner + distance[offset]


def _max_pool_backward_forward(grad_output, x, indices, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool2d_with_indices_backward``: each output gradient goes to the input
    position its window picked (``indices``)."""
    n, c = x.shape[:2]
    out = np.zeros((n, c, x.shape[2] * x.shape[3]), dtype=grad_output.dtype)
    picked = indices._array.reshape(n, c, -1)
    g = grad_output.reshape(n, c, -1)
    stride = stride or kernel_size
    if all(s >= (k - 1) * d + 1 for s, k, d in zip(stride, kernel_size, dilation)):
        np.put_along_axis(out, picked, g, axis=2)       # windows apart: each position picked once
    else:       # overlapping windows may pick one position twice: add, in output order as PyTorch
        np.add.at(out, (np.arange(n)[:, None, None], np.arange(c)[None, :, None], picked), g)
    return out.reshape(x.shape)


def _max_pool_double_backward(gg, ctx):
    """PyTorch's ``max_pool_double_backward``: the incoming gradient read back at the
    picked positions."""
    indices = ctx.indices
    return gg.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.shape)


# PyTorch's formula for the max-pool gradient is itself one op (a create_graph backward
# records MaxPool2DWithIndicesBackwardBackward0, which saves the indices).
_max_pool2d_with_indices_backward = _Op(
    "max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0", _max_pool_backward_forward,
    ("grad_output", "self"), saved_attrs=("indices",),
    grads={"grad_output": _max_pool_double_backward,
           "self": lambda gg, ctx: _creation.zeros_like(gg)})


def _max_pool_backward(grads, ctx):
    return _apply_op(_max_pool2d_with_indices_backward, (grads[0], ctx.self),
                     {"indices": ctx.result1, "kernel_size": ctx.kernel_size, "stride": ctx.stride,
                      "padding": ctx.padding, "dilation": ctx.dilation, "ceil_mode": ctx.ceil_mode})


_max_pool2d_with_indices = _Op("max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0",
                               _max_pool_forward, multi_output=True, saves={"self": None, "result1": None},
                               saved_attrs=("ceil_mode", "dilation", "kernel_size", "padding", "stride"),
                               grads={"self": _max_pool_backward})


# PyTorch's at::Reduction: nodes save the reduction as this number.
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _reduce_loss(loss, reduction):
    """A loss's numpy elements reduced as PyTorch's ``at::Reduction`` number says."""
    if reduction == _REDUCTION["mean"]:
        return loss.mean()
    return loss.sum() if reduction == _REDUCTION["sum"] else loss


def _mse_forward(x, target, reduction):
    return _reduce_loss((x - target) ** 2, reduction)


def _mse_backward_forward(g, x, target, reduction):
    d = x - target
    return g * d * (2.0 / d.size if reduction == _REDUCTION["mean"] else 2.0)


def _mse_backward(g, x, target, reduction):
    """``mse_loss_backward``, one op as in PyTorch (``MseLossBackwardBackward0`` under
    ``create_graph``); the target's gradient is the same op with the roles swapped."""
    return _apply_op(_mse_loss_backward, (g, x, target), {"reduction": reduction})


def _mse_second(gg, ctx, sign):
    scale = 2.0 / float(np.prod(ctx.self.shape)) if ctx.reduction == _REDUCTION["mean"] else 2.0
    return gg * ctx.grad_output * (sign * scale)


_mse_loss = _Op("mse_loss", "MseLossBackward0", _mse_forward, ("self", "target"),
                saves={"self": None, "target": None}, saved_attrs=("reduction",),
                grads={"self": lambda g, ctx: _mse_backward(g, ctx.self, ctx.target, ctx.reduction),
                       "target": lambda g, ctx: _mse_backward(g, ctx.target, ctx.self, ctx.reduction)})
_mse_loss_backward = _Op(
    "mse_loss_backward", "MseLossBackwardBackward0", _mse_backward_forward,
    ("grad_output", "self", "target"), saves={"grad_output": None, "self": None, "target": None},
    saved_attrs=("reduction",),
    grads={"grad_output": lambda gg, ctx: _mse_backward(gg, ctx.self, ctx.target, ctx.reduction),
           "self": lambda gg, ctx: _mse_second(gg, ctx, 1.0),
           "target": lambda gg, ctx: _mse_second(gg, ctx, -1.0)})


def _in_float64(fn):
    """Compute ``fn`` in float64 and round once to the input's dtype (as for exp/tanh)."""
    def forward(*arrays, **kw):
        return np.asarray(fn(*(a.astype(np.float64) for a in arrays), **kw)).astype(arrays[0].dtype)
    return forward


def _bce_logits_forward(x, target, weight, pos_weight, reduction):
    # softplus(-x), written to neither overflow nor lose small values
    softplus = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
    log_weight = 1 if pos_weight is None else 1 + (pos_weight._array - 1) * target
    loss = (1 - target) * x + log_weight * softplus
    return _reduce_loss(loss if weight is None else loss * weight._array, reduction)


def _bce_logits_scale(d, g, ctx):
    """``d * g``, times ``weight``, over the element count for a mean: PyTorch's order,
    so a ``create_graph`` backward records its nodes (``MulBackward0``, ``DivBackward1``)."""
    out = d * g
    if ctx.weight is not None:
        out = out * ctx.weight
    if ctx.reduction == _REDUCTION["mean"]:
        out = _apply_op(_ops.div_scalar, (out,), {"other": int(np.prod(ctx.self.shape))})
    return out


def _bce_logits_grad_self(g, ctx):
    # d/dx = (1 + (pos_weight - 1) * target) * sigmoid(x) - pos_weight * target
    x, t, pw = ctx.self, ctx.target, ctx.pos_weight
    d = x.sigmoid() - t if pw is None else (pw * t + 1 - t) * x.sigmoid() - pw * t
    return _bce_logits_scale(d, g, ctx)


def _bce_logits_grad_target(g, ctx):
    # d/dtarget = -x + (pos_weight - 1) * softplus(-x)
    x, pw = ctx.self, ctx.pos_weight
    d = -x if pw is None else -x + (pw - 1) * ((-x).clamp(min=0) + ((-x.abs()).exp() + 1).log())
    return _bce_logits_scale(d, g, ctx)


# ``weight`` and ``pos_weight`` are saved too (after ``self`` and ``target``), by
# binary_cross_entropy_with_logits, as PyTorch's node saves them: they are no inputs.
_binary_cross_entropy_with_logits = _Op(
    "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
    _in_float64(_bce_logits_forward), ("self", "target"), saves={"self": None, "target": None},
    saved_attrs=("reduction",), grads={"self": _bce_logits_grad_self, "target": _bce_logits_grad_target})


def _nll_pick(x_shape, target, weight, ignore_index):
    """The per-sample weight of the picked log-probability: a [N, C] matrix, one
    non-zero per row (0 for ignored rows)."""
    n, c = x_shape[0], x_shape[1]
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    if np.any((safe < 0) | (safe >= c)):
        bad = safe[(safe < 0) | (safe >= c)][0]
        raise IndexError(f"Target {bad} is out of bounds.")
    w = weight[safe] if weight is not None else np.ones(n)
    w = np.where(valid, w, 0.0)
    onehot = np.zeros((n, c))
    onehot[np.arange(n), safe] = w
    return onehot


def _nll_forward(x, pick, total_weight, target, weight, reduction, ignore_index):
    losses = -(x * pick).sum(axis=1)
    if reduction == _REDUCTION["none"]:
        return losses
    if reduction == _REDUCTION["sum"]:
        return losses.sum()
    return losses.sum() / total_weight._array


def _nll_backward(g, ctx):
    pick = _const(ctx.pick.astype(g._array.dtype))
    if ctx.reduction == _REDUCTION["none"]:
        return -(g.unsqueeze(1) * pick)
    if ctx.reduction == _REDUCTION["sum"]:
        return -(g * pick)
    return -(g * pick) / ctx.total_weight


# ``pick`` is the [N, C] matrix of per-sample weights (one non-zero per row) that forward
# and backward share; ``target``, ``weight`` and ``total_weight`` are what PyTorch saves.
_nll_loss = _Op("nll_loss", "NllLossBackward0", _nll_forward, saves={"self": None},
                saved_attrs=("ignore_index", "reduction", "target", "total_weight", "weight"),
                grads={"self": _nll_backward}, aten="nll_loss_forward.default")


def _ln_dims(x_ndim, normalized_shape):
    return tuple(range(x_ndim - len(normalized_shape), x_ndim))


def _ln_forward(x, weight, bias, normalized_shape, eps):
    """PyTorch's native_layer_norm: the output, and the mean and 1/std it saves."""
    dims = _ln_dims(x.ndim, normalized_shape)
    mu = x.mean(axis=dims, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mu) ** 2).mean(axis=dims, keepdims=True) + eps)
    lead = x.shape[:x.ndim - len(normalized_shape)] + (1,) * len(normalized_shape)
    return (x - mu) * rstd * weight + bias, mu.reshape(lead), rstd.reshape(lead)


def _ln_xhat(ctx):
    x = ctx.input
    dims = _ln_dims(x.dim(), ctx.normalized_shape)
    mu = x.mean(dims, keepdim=True)
    xc = x - mu
    rstd = ((xc * xc).mean(dims, keepdim=True) + ctx.eps) ** -0.5
    return xc * rstd, rstd, dims


def _ln_grad_input(grads, ctx):
    # mean and rstd are recomputed from the input with minigrad ops (not read from the
    # saved result1/result2), so double backward differentiates through them.
    g = grads[0]
    xhat, rstd, dims = _ln_xhat(ctx)
    w = ctx.weight
    gw = g * w if w is not None else g
    return rstd * (gw - gw.mean(dims, keepdim=True) - xhat * (gw * xhat).mean(dims, keepdim=True))


_native_layer_norm = _Op("native_layer_norm", "NativeLayerNormBackward0", _ln_forward,
                         ("input", "weight", "bias"), multi_output=True,
                         saves={"bias": None, "input": None, "weight": None, "result1": None,
                                "result2": None},
                         saved_attrs=("normalized_shape",),
                         grads={"input": _ln_grad_input,
                                "weight": lambda grads, ctx: grads[0] * _ln_xhat(ctx)[0],
                                "bias": lambda grads, ctx: grads[0]})


def _bn_shape(x_ndim):
    """Where a per-channel vector ``[C]`` broadcasts against an ``[N, C, *]`` input, and
    which dims the statistics reduce over (all but the channel dim)."""
    return (1, -1) + (1,) * (x_ndim - 2), (0,) + tuple(range(2, x_ndim))


def _bn_forward(x, weight, bias, training, eps, stats):
    # ``stats`` = (mean, invstd) per channel, computed by ``batch_norm`` (batch statistics
    # when training, running ones otherwise), for the forward only.
    shape, _ = _bn_shape(x.ndim)
    mean, invstd = stats
    scale = (invstd * weight).astype(x.dtype).reshape(shape)
    shift = (bias - mean * invstd * weight).astype(x.dtype).reshape(shape)
    return x * scale + shift


def _bn_xhat(ctx):
    """The normalised input as minigrad ops of the saved values, so that the formulas
    below are differentiable again. In training, the batch statistics are recomputed
    from ``input`` (they depend on it); in evaluation the running ones are constants."""
    x = ctx.input
    shape, dims = _bn_shape(x.dim())
    if ctx.training:
        xc = x - x.mean(dims, keepdim=True)
        invstd = ((xc * xc).mean(dims, keepdim=True) + ctx.eps) ** -0.5
    else:
        xc = x - ctx.running_mean.reshape(shape)
        invstd = (ctx.running_var.reshape(shape) + ctx.eps) ** -0.5
    return xc * invstd, invstd, shape, dims


def _bn_grad_input(g, ctx):
    xhat, invstd, shape, dims = _bn_xhat(ctx)
    gw = g * ctx.weight.reshape(shape) if ctx.weight is not None else g
    if not ctx.training:
        return gw * invstd
    return invstd * (gw - gw.mean(dims, keepdim=True) - xhat * (gw * xhat).mean(dims, keepdim=True))


# PyTorch's native_batch_norm returns (output, save_mean, save_invstd) and saves input,
# weight, running_mean, running_var, result1 (= save_mean) and result2 (= save_invstd);
# ``batch_norm`` below saves them in that order (the row's ``saves`` is empty for that).
_native_batch_norm = _Op("native_batch_norm", "NativeBatchNormBackward0", _bn_forward,
                         ("input", "weight", "bias"), saved_attrs=("eps", "training"),
                         grads={"input": _bn_grad_input,
                                "weight": lambda g, ctx: (g * _bn_xhat(ctx)[0]).sum(_bn_shape(g.dim())[1]),
                                "bias": lambda g, ctx: g.sum(_bn_shape(g.dim())[1])})


# --------------------------------------------------------------------------------------
# The functions
# --------------------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """``F.linear``: ``input @ weight.T + bias``. A 2-D input with a bias is one
    ``addmm`` (node ``AddmmBackward0``, saving ``mat1`` = input, ``mat2`` = weight.T),
    as in PyTorch; another contiguous input with a bias is viewed as 2-D around it."""
    for position, (name, value) in enumerate((("input", input), ("weight", weight)), 1):
        if not isinstance(value, _Tensor):      # PyTorch's argument parser refuses it
            raise TypeError(f"linear(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    if _autocast_mode._active:
        input, weight, bias = _autocast_mode.cast_function_inputs("linear", input, weight, bias)
    if input.dim() == 2 and bias is not None:
        return _apply_op(_addmm, (bias, input, weight.t()), {"beta": 1, "alpha": 1})
    if bias is not None and input.dim() > 0 and bias.dim() == 1 and input._array.flags.c_contiguous:
        # PyTorch's _flatten_nd_linear: any other contiguous input is flattened to 2-D
        # (ViewBackward0), goes through one addmm, and is viewed back (ViewBackward0).
        flat = _apply_op(_addmm, (bias, input.reshape(-1, input.shape[-1]), weight.t()),
                        {"beta": 1, "alpha": 1})
        return flat.view(*input.shape[:-1], flat.shape[-1])
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _get_softmax_dim(name, ndim, stacklevel):
    """PyTorch's choice of dim when ``softmax``/``log_softmax`` get none: 0 for 0-, 1-
    and 3-dim inputs, else 1, with its deprecation warning, ``stacklevel`` frames up.
    ``nn.Softmax`` passes 4 where PyTorch's passes 5 (its ``Module.__call__`` is one frame
    deeper): either way the warning names the module's call machinery."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim)


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


_erf = np.frompyfunc(math.erf, 1, 1)


def _gelu_cdf(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def _gelu_pdf(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _gelu_double_backward(gg, ctx, wrt):
    # gelu''(x) = pdf(x) * (2 - x**2)
    if wrt == "grad_output":
        return _apply_op(_gelu_backward, (gg, ctx.self), {"approximate": ctx.approximate})
    x = ctx.self._array.astype(np.float64)
    second = _const((_gelu_pdf(x) * (2.0 - x * x)).astype(ctx.self._array.dtype))
    return gg * ctx.grad_output * second


_gelu_backward = _Op("gelu_backward", "GeluBackwardBackward0",
                     _in_float64(lambda g, x, approximate: g * (_gelu_cdf(x) + x * _gelu_pdf(x))),
                     ("grad_output", "self"), saves={"grad_output": None, "self": None},
                     saved_attrs=("approximate",),
                     grads={"grad_output": lambda gg, ctx: _gelu_double_backward(gg, ctx, "grad_output"),
                            "self": lambda gg, ctx: _gelu_double_backward(gg, ctx, "self")})

_gelu = _Op("gelu", "GeluBackward0", _in_float64(lambda x, approximate: x * _gelu_cdf(x)),
            saves={"self": None}, saved_attrs=("approximate",),
            grads={"self": lambda g, ctx: _apply_op(_gelu_backward, (g, ctx.self),
                                                 {"approximate": ctx.approximate})})


def gelu(input, approximate="none"):
    """``F.gelu``: ``x * Phi(x)`` (node ``GeluBackward0``); ``approximate="tanh"`` is not
    supported yet."""
    if approximate != "none":
        raise NotImplementedError(f"minigrad's gelu supports approximate='none' only, got {approximate!r}")
    return _apply_op(_gelu, (input,), {"approximate": approximate})


def _embedding_dense_backward_forward(g, indices, num_weights, padding_idx, scale_grad_by_freq):
    """grad_weight: each looked-up row of ``g`` added into its row of a zero
    [num_weights, dim] array; none for padding_idx, divided by the count with
    scale_grad_by_freq."""
    flat = indices._array.reshape(-1)
    rows = g.reshape(-1, g.shape[-1]) if flat.size else g.reshape(0, g.shape[-1])
    out = np.zeros((num_weights, g.shape[-1]), dtype=g.dtype)
    np.add.at(out, flat, rows)
    if scale_grad_by_freq:
        out /= np.maximum(np.bincount(flat, minlength=num_weights), 1)[:, None]
    if padding_idx >= 0:
        out[padding_idx] = 0
    return out


def _embedding_double_backward(gg, ctx):
    # PyTorch's embedding_dense_double_backward: the rows of gg picked by indices, none for
    # padding_idx (it ignores scale_grad_by_freq, and so does this).
    picked = _apply_op(_embedding, (gg,), {"indices": ctx.indices, "padding_idx": -1,
                                            "scale_grad_by_freq": False, "sparse": False})
    if ctx.padding_idx >= 0:
        keep = (ctx.indices._array != ctx.padding_idx)[..., None].astype(gg._array.dtype)
        picked = picked * _const(keep)
    return picked


_embedding_dense_backward = _Op(
    "embedding_dense_backward", "EmbeddingDenseBackwardBackward0", _embedding_dense_backward_forward,
    ("grad_output",), saved_attrs=("indices", "padding_idx"),
    grads={"grad_output": _embedding_double_backward})

_embedding = _Op("embedding", "EmbeddingBackward0",
                 lambda weight, indices, padding_idx, scale_grad_by_freq, sparse: weight[indices._array],
                 ("weight",), saved_attrs=("indices", "padding_idx", "scale_grad_by_freq", "sparse",
                                           "weight_sym_argsize_0"),
                 grads={"weight": lambda g, ctx: _apply_op(
                     _embedding_dense_backward, (g,),
                     {"indices": ctx.indices, "num_weights": ctx.weight_sym_argsize_0,
                      "padding_idx": ctx.padding_idx, "scale_grad_by_freq": ctx.scale_grad_by_freq})})


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """``F.embedding``: rows of ``weight`` picked by the integer tensor ``input`` (node
    ``EmbeddingBackward0``); no gradient flows to the ``padding_idx`` row. ``max_norm``
    and ``sparse=True`` are not supported."""
    if max_norm is not None or sparse:
        raise NotImplementedError("minigrad's embedding does not support max_norm or sparse=True")
    if not isinstance(input, _Tensor) or input.dtype is not dtypes.int64:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           "scalar types: Long, Int; but got "
                           f"{getattr(input, 'type', lambda: type(input).__name__)()} instead "
                           "(while checking arguments for embedding)")
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        padding_idx += weight.shape[0]
    return _apply_op(_embedding, (weight,), {"indices": input, "padding_idx": padding_idx,
                                              "scale_grad_by_freq": scale_grad_by_freq,
                                              "sparse": sparse})


def adaptive_avg_pool2d(input, output_size):
    """``F.adaptive_avg_pool2d`` for ``output_size`` 1 (global average pooling), which
    PyTorch computes as ``input.mean((-1, -2), keepdim=True)`` (node ``MeanBackward1``).
    Other output sizes are not supported yet."""
    size = _pair(output_size)
    if size != (1, 1):
        raise NotImplementedError("minigrad's adaptive_avg_pool2d supports output_size=1 only, "
                                  f"got {output_size!r}")
    return input.mean((-1, -2), keepdim=True)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """``F.unfold`` (im2col): ``[N, C, H, W] -> [N, C*kh*kw, L]``, node ``Im2ColBackward0``."""
    return _apply_im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``F.fold`` (col2im), the adjoint of :func:`unfold`; node ``Col2ImBackward0``."""
    return _apply_col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                         _pair(padding), _pair(stride))


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``F.conv2d`` as one op (node ``ConvolutionBackward0``): im2col then one matmul.
    ``groups`` must be 1; ``padding`` an int or pair (or ``"valid"`` / ``"same"``)."""
    if groups != 1:
        raise NotImplementedError("minigrad's conv2d supports groups=1 only")
    if _autocast_mode._active:
        input, weight, bias = _autocast_mode.cast_function_inputs("conv2d", input, weight, bias)
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    if input.dim() != 4:
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {list(input.shape)}")
    if input.shape[1] != weight.shape[1]:
        raise RuntimeError(
            f"Given groups=1, weight of size {list(weight.shape)}, expected input{list(input.shape)} "
            f"to have {weight.shape[1]} channels, but got {input.shape[1]} channels instead")
    kh, kw = weight.shape[-2:]
    dilation = _pair(dilation)
    if padding == "valid":
        padding = 0
    elif padding == "same":
        padding = (dilation[0] * (kh - 1) // 2, dilation[1] * (kw - 1) // 2)
    if bias is None:    # an empty constant: the node still has its three edges, (None, 0) last
        bias = _Tensor._wrap(np.zeros(0, dtype=weight._array.dtype))
    out = _apply_op(_convolution, (input, weight, bias),
                   {"stride": _pair(stride), "padding": _pair(padding), "dilation": dilation,
                    "groups": groups, "transposed": False, "output_padding": (0, 0)})
    return out.squeeze(0) if unbatched else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``F.max_pool2d`` as one op (node ``MaxPool2DWithIndicesBackward0``). Indices are
    flat positions in each input plane, as PyTorch's; ``ceil_mode`` is not supported."""
    if ceil_mode:
        raise NotImplementedError("minigrad's max_pool2d does not support ceil_mode=True")
    kernel_size = _pair(kernel_size)
    stride = () if stride is None or stride == [] else _pair(stride)
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    out, indices = _apply_op(_max_pool2d_with_indices, (input,),
                            {"kernel_size": kernel_size, "stride": stride, "padding": _pair(padding),
                             "dilation": _pair(dilation), "ceil_mode": ceil_mode})
    if unbatched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return (out, indices) if return_indices else out


def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``F.mse_loss``: mean (or sum, or none) of squared differences; ``MseLossBackward0``."""
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _same_size(input, _as_tensor(target))
    return _apply_op(_mse_loss, (input, target), {"reduction": _reduction_enum(reduction)})


def _same_size(input, target):
    """The pair broadcast to one shape, with PyTorch's warning when the shapes differ
    (``mse_loss``, ``l1_loss``); raised at the caller's caller, the user's line."""
    if input.shape == target.shape:
        return input, target
    warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                  f"({input.shape}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.", stacklevel=3)
    return _broadcast_pair(input, target)


def _reduction_enum(reduction):
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTION[reduction]


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``F.l1_loss``: mean (or sum, or none) of ``|input - target|``. As in PyTorch it is
    made of ops, not one node: ``MeanBackward0`` (``SumBackward0``) over ``AbsBackward0``
    over ``SubBackward0``. With ``weight`` (of ``input``'s size) the mean is weighted."""
    reduction = _reduction_enum(_reduction(size_average, reduce, reduction))
    input, target = _same_size(input, _as_tensor(target))
    if _autocast_mode._active:
        input, target, weight = _autocast_mode.cast_function_inputs("l1_loss", input, target, weight)
    errors = (input - target).abs()
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        errors = errors * weight
        if reduction == _REDUCTION["mean"]:
            return errors.sum() / weight.sum()
    return _reduce_loss(errors, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """``F.binary_cross_entropy_with_logits``: binary cross-entropy of ``sigmoid(input)``,
    computed from the logits without overflow, one node
    (``BinaryCrossEntropyWithLogitsBackward0``, saving ``self``, ``target``, ``weight``,
    ``pos_weight``). ``weight`` scales each element's loss, ``pos_weight`` the positive
    term (broadcast along the last dimension, one per class); neither may require grad."""
    from ..autograd.graph import SavedTensor
    reduction = _reduction_enum(_reduction(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None and t.requires_grad and _grad_mode.is_grad_enabled():
            raise RuntimeError("The function 'binary_cross_entropy_with_logits' is not differentiable with "
                               f"respect to argument '{name}'. This input cannot have requires_grad True.")
    out = _apply_op(_binary_cross_entropy_with_logits, (input, target),
                    {"weight": weight, "pos_weight": pos_weight, "reduction": reduction})
    node = out.grad_fn
    if node is not None:
        node._stored["weight"] = SavedTensor(weight)
        node._stored["pos_weight"] = SavedTensor(pos_weight)
    return out


def _broadcast_pair(a, b):
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    return a.expand(*shape), b.expand(*shape)


def _target_array(target):
    t = target._array if isinstance(target, _Tensor) else np.asarray(target)
    if t.dtype.kind not in "iu":
        found = target.dtype if isinstance(target, _Tensor) else t.dtype
        raise RuntimeError(f"expected scalar type Long but found {found}")
    return t.astype(np.int64)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """``F.nll_loss`` on log-probabilities ``[N, C]`` (or ``[C]``) and int64 class
    indices; ``NllLossBackward0``."""
    reduction = _reduction(size_average, reduce, reduction)
    t = _target_array(target)
    w = None if weight is None else (weight._array if isinstance(weight, _Tensor) else np.asarray(weight))
    if input.dim() == 1:          # one unbatched sample
        out = nll_loss(input.unsqueeze(0), _Tensor._wrap(t.reshape(1)), weight, None, ignore_index,
                       None, reduction)
        return out.squeeze(0) if reduction == "none" else out
    if input.dim() != 2:
        raise NotImplementedError("minigrad's nll_loss takes [N, C] or [C] inputs")
    if t.shape[0] != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({t.shape[0]}).")
    pick = _nll_pick(tuple(input.shape), t, w, ignore_index).astype(input._array.dtype)
    total = pick.sum() if reduction != "none" else 0.0
    return _apply_op(_nll_loss, (input,), {
        "pick": pick, "total_weight": _Tensor._wrap(np.asarray(total, dtype=input._array.dtype)),
        "target": _Tensor._wrap(t), "weight": None if w is None else _Tensor._wrap(w),
        "reduction": _REDUCTION[reduction], "ignore_index": ignore_index})


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """``F.cross_entropy``: ``nll_loss(log_softmax(input, 1), target)`` (the log-softmax
    subtracts the row maximum first, so large logits do not overflow). ``target`` is
    int64 class indices, or class probabilities of ``input``'s shape."""
    reduction = _reduction(size_average, reduce, reduction)
    if _autocast_mode._active:
        input, target, weight = _autocast_mode.cast_function_inputs("cross_entropy_loss", input, target,
                                                                    weight)
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    if isinstance(target, _Tensor) and target.is_floating_point():
        losses = -(logp * target).sum(class_dim)
        return _reduce_loss(losses, _reduction_enum(reduction))
    if label_smoothing:
        raise NotImplementedError("minigrad's cross_entropy does not support label_smoothing")
    return nll_loss(logp, target, weight, None, ignore_index, None, reduction)


def dropout(input, p=0.5, training=True, inplace=False):
    """``F.dropout``: zero each element with probability ``p`` (minigrad's generator,
    seeded by ``manual_seed``) and scale the rest by ``1/(1-p)``; identity when not
    training. As PyTorch does on the CPU, the result is ``input * noise`` with ``noise``
    the scaled mask, so the node is a ``MulBackward0``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _creation._rng().random(tuple(input.shape)) >= p
    noise = _Tensor._wrap((keep / (1.0 - p)).astype(input._array.dtype))
    out = input * noise
    if inplace:
        input._array[...] = out._array
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``F.layer_norm`` over the last ``len(normalized_shape)`` dims, one op
    (``NativeLayerNormBackward0``); without ``weight`` the node's ``_saved_weight`` is
    None, as in PyTorch."""
    from ..autograd.graph import SavedTensor
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dtype = input._array.dtype
    w = weight if weight is not None else _Tensor._wrap(np.ones(normalized_shape, dtype=dtype))
    b = bias if bias is not None else _Tensor._wrap(np.zeros(normalized_shape, dtype=dtype))
    out = _apply_op(_native_layer_norm, (input, w, b), {"normalized_shape": normalized_shape, "eps": eps})[0]
    node = out.grad_fn
    if node is not None:
        if weight is None:
            node._stored["weight"] = SavedTensor.NONE
        if bias is None:
            node._stored["bias"] = SavedTensor.NONE
    return out


def _check_channels(name, t, channels):
    if t is not None and t.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """``F.batch_norm`` over an ``[N, C, *]`` input, per channel ``C``, one op (node
    ``NativeBatchNormBackward0``, saving ``input``, ``weight``, ``running_mean``,
    ``running_var``, ``result1`` = batch mean and ``result2`` = batch 1/std; the last
    two are empty when not training).

    Training: normalise with the batch mean and *biased* variance, and (when running
    statistics are given) update them in place with ``momentum``, using the *unbiased*
    variance, without bumping their version counter (as PyTorch's kernel). Otherwise:
    normalise with the running statistics."""
    from ..autograd.graph import SavedTensor
    shape = tuple(input.shape)
    if training:
        per_channel = shape[0] * int(np.prod(shape[2:]))
        if per_channel == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, "
                             f"got input size {input.shape}")
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    channels = shape[1] if len(shape) > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        _check_channels(name, t, channels)

    x = input._array
    if input.is_meta:       # no data: statistics of zeros, of the right shapes (the op's result is meta)
        x = np.zeros(x.shape, x.dtype)
    dtype = x.dtype
    wide = np.float64 if dtype.kind == "f" else dtype      # statistics in double precision
    _, dims = _bn_shape(x.ndim)
    if training:
        mean = x.mean(axis=dims, dtype=wide)
        var = ((x.astype(wide) - mean.reshape(_bn_shape(x.ndim)[0])) ** 2).mean(axis=dims)
        invstd = 1.0 / np.sqrt(var + eps)
        if (running_mean is not None or running_var is not None) and not input.is_meta:
            n = x.size // channels
            if running_mean is not None:
                rm = running_mean._array
                rm[...] = ((1 - momentum) * rm + momentum * mean).astype(rm.dtype)
            if running_var is not None:
                rv = running_var._array
                rv[...] = ((1 - momentum) * rv + momentum * var * n / (n - 1)).astype(rv.dtype)
    else:
        mean = running_mean._array.astype(wide)
        invstd = 1.0 / np.sqrt(running_var._array.astype(wide) + eps)

    w = weight if weight is not None else _Tensor._wrap(np.ones(channels, dtype=dtype))
    b = bias if bias is not None else _Tensor._wrap(np.zeros(channels, dtype=dtype))
    out = _apply_op(_native_batch_norm, (input, w, b),
                   {"training": bool(training), "eps": eps, "stats": (mean, invstd)})
    node = out.grad_fn
    if node is not None and node._op is _native_batch_norm:
        if training:
            result1, result2 = (_Tensor._wrap(a.astype(dtype)) for a in (mean, invstd))
        else:
            result1, result2 = (_Tensor._wrap(np.zeros(0, dtype=dtype)) for _ in range(2))
        for name, value in (("input", input), ("weight", weight), ("running_mean", running_mean),
                            ("running_var", running_var), ("result1", result1), ("result2", result2)):
            node._stored[name] = SavedTensor(value)
    return out
