"""The op table: one row per op, read like PyTorch's ``derivatives.yaml``.

Each row gives the aten name, the name PyTorch gives the backward node, the numpy
forward, the values saved for backward (and for whose gradient), and one derivative
formula per differentiable input: ``input: lambda g, ctx: ...`` where ``g`` is the
gradient w.r.t. the output and ``ctx`` reads saved values and attributes. Formulas use
minigrad ops, so with ``create_graph=True`` they build a graph themselves (higher-order
gradients). They return gradients in the *broadcast* shape; the engine reduces them to
each input's shape in one place (``validate_outputs``), as PyTorch's engine does.

Adding an op is adding a row here and a method that calls ``apply_op``.

Rows carry aten's names, so in this module ``sum``, ``max``, ``min``, ``abs``, ``all``,
``any``, ``slice`` and ``copy`` are rows, not Python's builtins: a kernel here writes
numpy (``np.maximum``, ``np.s_[:n]``) or tensor methods (``g.narrow``) instead. The
module sits below the ``Tensor`` class (it makes tensors through ``_tensor_class``), so
it is in no import cycle.
"""
import warnings

import numpy as np

from . import _tensor_class
from ._dispatch import Op, apply_op


def _mask(bool_array, like):
    """A constant float tensor (no graph) from a numpy boolean mask."""
    return _tensor_class.Tensor._wrap(bool_array.astype(like._array.dtype))


def _restore_dims(g, ctx):
    """Undo ``keepdim=False`` of a reduction over ``ctx.dim`` so ``g`` broadcasts back."""
    if not ctx.keepdim:
        ndim = len(ctx.self_sym_sizes)
        for d in sorted(d % ndim for d in ctx.dim):
            g = g.unsqueeze(d)
    return g


def _evenly_distribute_backward(g, ctx):
    # PyTorch's evenly_distribute_backward: ties share the gradient equally.
    hit = ctx.self._array == ctx.result._array
    return g * _mask(hit, g) / float(hit.sum())


def _select_backward(g, ctx):
    # The gradient flows back only to the selected index along ``dim``.
    idx = ctx.indices._array if ctx.keepdim else np.expand_dims(ctx.indices._array, ctx.dim)
    onehot = np.zeros(ctx.self_sym_sizes, dtype=bool)
    np.put_along_axis(onehot, idx, True, axis=ctx.dim)
    gk = g if ctx.keepdim else g.unsqueeze(ctx.dim)
    return gk * _mask(onehot, g)


def _max_dim_forward(x, dim, keepdim, reduce=np.argmax):
    idx = reduce(x, axis=dim)
    values = np.take_along_axis(x, np.expand_dims(idx, dim), axis=dim)
    if not keepdim:
        values = np.squeeze(values, dim)
        return values, idx
    return values, np.expand_dims(idx, dim)


def _norm_backward(g, ctx):
    # PyTorch's norm_backward for ord 2: self * (grad / result), 0 where the norm is 0.
    result = ctx.result
    if ctx.dim is not None and not ctx.keepdim:
        for d in sorted(ctx.dim):
            g, result = g.unsqueeze(d), result.unsqueeze(d)
    zero = result._array == 0
    if not zero.any():
        return g * ctx.self / result
    return g * ctx.self / (result + _mask(zero, result)) * _mask(~zero, result)


def _topk_forward(x, k, dim, largest, sorted):
    d = dim % x.ndim
    # a stable sort: among equal values the lower index comes first, as in PyTorch
    order = np.argsort(-x if largest else x, axis=d, kind="stable")
    indices = np.take(order, np.arange(k), axis=d)
    return np.take_along_axis(x, indices, axis=d), indices.astype(np.int64)


def _topk_backward(grads, ctx):
    # Each of the k gradients goes back to the position it was taken from.
    g, sizes = grads[0], ctx.self_sym_sizes
    d = ctx.dim % len(sizes)
    indices = ctx.indices._array
    total = _tensor_class.Tensor._wrap(np.zeros(sizes, dtype=g._array.dtype))
    for j in range(indices.shape[d]):
        hit = np.zeros(sizes, dtype=bool)
        np.put_along_axis(hit, np.take(indices, [j], axis=d), True, axis=d)
        total = total + g.narrow(d, j, 1) * _mask(hit, g)
    return total


def _sort_forward(x, dim, descending):
    if x.ndim == 0:
        return x.copy(), np.zeros((), dtype=np.int64)
    # Stable, as PyTorch's CPU sort: equal values keep their order, descending too (a
    # stable ascending sort of the reversed values, reversed back), and NaN counts as
    # the largest value.
    if descending:
        n = x.shape[dim]
        indices = n - 1 - np.flip(np.argsort(np.flip(x, dim), axis=dim, kind="stable"), dim)
    else:
        indices = np.argsort(x, axis=dim, kind="stable")
    return np.take_along_axis(x, indices, axis=dim), indices.astype(np.int64)


def _sort_backward(grads, ctx):
    # PyTorch's value_selecting_reduction_backward: zeros.scatter_(dim, indices, grad), each
    # gradient back where its value came from (a ScatterBackward0 under create_graph).
    g, sizes = grads[0], ctx.self_sym_sizes
    if not sizes:
        return g
    zeros = _tensor_class.Tensor._wrap(np.zeros(sizes, dtype=g._array.dtype))
    return apply_op(scatter, (zeros, g), {"dim": ctx.dim, "index": ctx.indices})


def _index_add_forward(x, source, key, dim, index, alpha, source_dim):
    out = x.copy()
    np.add.at(out, key, source if alpha == 1 else source * alpha)
    return out


def _index_add_source_backward(g, ctx):
    # PyTorch: grad.index_select(dim, index) (times alpha), the source's shape.
    picked = g[ctx.key]
    return picked if ctx.alpha == 1 else _mul_scalar(picked, ctx.alpha)


def _clamp_forward(x, min=None, max=None):
    return np.clip(x, min, max) if (min is not None or max is not None) else x.copy()


def _clamp_backward(g, ctx):
    x = ctx.self._array
    keep = np.ones(x.shape, dtype=bool)
    if ctx.min is not None:
        keep &= x >= ctx.min
    if ctx.max is not None:
        keep &= x <= ctx.max
    return _where_zero(keep, g)


def _where_zero(keep, g, zero_where=False):
    """PyTorch's ``where(keep, grad, 0)`` (or ``where(keep, 0, grad)`` with `zero_where`):
    a masked-out gradient is +0, where multiplying by a mask would give -0.0 for a negative
    gradient, and a ``create_graph=True`` backward records PyTorch's ``WhereBackward0``."""
    zero = _tensor_class.Tensor._wrap(np.zeros((), dtype=g._array.dtype))
    condition = _tensor_class.Tensor._wrap(np.broadcast_to(keep, g._array.shape))
    return apply_op(where, (zero, g) if zero_where else (g, zero), {"condition": condition})


def _softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(x, dim):
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


def _quiet(fn):
    """PyTorch gives nan/inf silently (log(-1), 0/0); numpy would warn. Only the ops that
    can produce them pay for ``np.errstate``."""
    def forward(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return forward


# numpy's float32 exp/log/tanh/sin/cos differ from PyTorch's in the last bit for about a
# third of inputs (measured on 65,536 normal values); computing in float64 and rounding
# once gives the values PyTorch prints for all but about 1 % (exp, tanh), which is what the
# differential tests compare. It costs: numpy's float64 tanh of 16,384 values takes ~230 us
# on this project's 2-core machine against ~45 us for its float32 kernel (SIMD), about
# 4 us against 1 us on 16 values. So the float64 round trip is kept for tensors of up to
# _EXACT_MAX_NUMEL elements, the ones people print and compare value by value; a larger
# tensor (a hidden layer's activations) uses the float32 kernel: 190 us less per tanh of
# a 64 x 256 activation in the MLP benchmark, for last-bit differences that 4 printed
# decimals do not show.
# set_exact_float32_math(False) uses the float32 kernels for every size.
_exact_float32 = True
_EXACT_MAX_NUMEL = 4096


def set_exact_float32_math(enabled):
    """Compute float32 ``exp``, ``log``, ``tanh``, ``sigmoid``, ``sin``, ``cos`` (and
    ``log_softmax``'s backward) of tensors up to 4,096 elements in float64 and round
    once (True, the default: the values PyTorch prints), or always with numpy's float32
    kernels (False: up to ~4x faster, sometimes one ulp away from PyTorch). Larger
    tensors use the float32 kernels either way. minigrad only; PyTorch has no switch."""
    global _exact_float32
    _exact_float32 = bool(enabled)


def is_exact_float32_math():
    """Whether :func:`set_exact_float32_math` is on (it is by default)."""
    return _exact_float32


def _precise(fn, can_warn=True):
    """``fn`` on float32 computed as :func:`set_exact_float32_math` says; quiet too.
    ``can_warn=False``: ``fn`` never raises a floating-point flag (tanh, whose values
    lie in [-1, 1], not even for inf or NaN), so it skips ``np.errstate`` (~0.7 us)."""
    def precise(x):
        if x.dtype.char == "f" and _exact_float32 and x.size <= _EXACT_MAX_NUMEL:
            return fn(x.astype(np.float64)).astype(np.float32)
        return fn(x)
    if not can_warn:
        return precise
    return _quiet(precise)


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


# --- elementwise arithmetic ------------------------------------------------------------
add = Op("add", "AddBackward0", lambda a, b, alpha=1: a + b if alpha == 1 else a + alpha * b,
         ("self", "other"), saved_attrs=("alpha",),
         grads={"self": lambda g, ctx: g, "other": lambda g, ctx: g if ctx.alpha == 1 else g * ctx.alpha},
         aten="add.Tensor")
sub = Op("sub", "SubBackward0", lambda a, b, alpha=1: a - b if alpha == 1 else a - alpha * b,
         ("self", "other"), saved_attrs=("alpha",),
         grads={"self": lambda g, ctx: g, "other": lambda g, ctx: -g if ctx.alpha == 1 else g * -ctx.alpha},
         aten="sub.Tensor")
rsub = Op("rsub", "RsubBackward1", lambda a, other, alpha: np.subtract(other, a).astype(a.dtype, copy=False),
          saved_attrs=("alpha",), grads={"self": lambda g, ctx: -g if ctx.alpha == 1 else g * -ctx.alpha},
          aten="rsub.Scalar")
mul = Op("mul", "MulBackward0", np.multiply, ("self", "other"),
         saves={"other": "self", "self": "other"},
         grads={"self": lambda g, ctx: g * ctx.other, "other": lambda g, ctx: g * ctx.self},
         aten="mul.Tensor")
div = Op("div", "DivBackward0", _quiet(np.true_divide), ("self", "other"),
         saves={"other": None, "self": "other"},
         grads={"self": lambda g, ctx: g / ctx.other,
                "other": lambda g, ctx: -g * ((ctx.self / ctx.other) / ctx.other)}, aten="div.Tensor")
neg = Op("neg", "NegBackward0", np.negative, grads={"self": lambda g, ctx: -g})
reciprocal = Op("reciprocal", "ReciprocalBackward0", _quiet(lambda x: 1.0 / x), saves={"result": None},
                grads={"self": lambda g, ctx: -g * ctx.result * ctx.result})
pow_scalar = Op("pow", "PowBackward0", _quiet(lambda x, exponent: np.power(x, exponent)),
                saves={"self": None}, saved_attrs=("exponent",),
                grads={"self": lambda g, ctx: g * _mul_scalar(ctx.self ** (ctx.exponent - 1), ctx.exponent)
                       if ctx.exponent != 0 else g * 0.0}, aten="pow.Tensor_Scalar")
pow_tensor = Op("pow", "PowBackward1", _quiet(np.power), ("self", "exponent"),
                saves={"self": None, "exponent": None, "result": "exponent"},
                grads={"self": lambda g, ctx: g * ctx.exponent * ctx.self ** (ctx.exponent - 1),
                       "exponent": lambda g, ctx: g * ctx.result * ctx.self.log()}, aten="pow.Tensor_Tensor")
pow_scalar_base = Op("pow", "PowBackward2", _quiet(lambda e, self: np.power(self, e)), ("exponent",),
                     saves={"exponent": None, "result": None}, saved_attrs=("self",),
                     grads={"exponent": lambda g, ctx: g * _mul_scalar(ctx.result, float(np.log(ctx.self)))},
                     aten="pow.Scalar")
maximum = Op("maximum", "MaximumBackward0", np.maximum, ("self", "other"),
             saves={"other": None, "self": None},
             grads={"self": lambda g, ctx: g * _mask(ctx.self._array > ctx.other._array, g)
                    + g * _mask(ctx.self._array == ctx.other._array, g) * 0.5,
                    "other": lambda g, ctx: g * _mask(ctx.other._array > ctx.self._array, g)
                    + g * _mask(ctx.self._array == ctx.other._array, g) * 0.5})
where = Op("where", "WhereBackward0", lambda a, b, condition: np.where(condition._array, a, b),
           ("self", "other"), saved_attrs=("condition",),
           grads={"self": lambda g, ctx: _where_zero(ctx.condition._array, g),
                  "other": lambda g, ctx: _where_zero(ctx.condition._array, g, zero_where=True)},
           aten="where.self")
masked_fill = Op("masked_fill", "MaskedFillBackward0",
                 lambda x, mask, value: np.where(mask._array, np.asarray(value, dtype=x.dtype), x),
                 saved_attrs=("mask",),
                 grads={"self": lambda g, ctx: apply_op(masked_fill, (g,), {"mask": ctx.mask, "value": 0})},
                 aten="masked_fill.Scalar")

# --- elementwise functions ------------------------------------------------------------------
exp = Op("exp", "ExpBackward0", _precise(np.exp), saves={"result": None},
         grads={"self": lambda g, ctx: g * ctx.result})
log = Op("log", "LogBackward0", _precise(np.log), saves={"self": None},
         grads={"self": lambda g, ctx: g / ctx.self})
tanh = Op("tanh", "TanhBackward0", _precise(np.tanh, can_warn=False), saves={"result": None},
          grads={"self": lambda g, ctx: apply_op(tanh_backward, (g, ctx.result))})
sigmoid = Op("sigmoid", "SigmoidBackward0", _precise(lambda x: 1.0 / (1.0 + np.exp(-x))),
             saves={"result": None},
             grads={"self": lambda g, ctx: apply_op(sigmoid_backward, (g, ctx.result))})
relu = Op("relu", "ReluBackward0", lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
          saves={"result": None},
          grads={"self": lambda g, ctx: apply_op(threshold_backward, (g, ctx.result), {"threshold": 0})})
abs = Op("abs", "AbsBackward0", np.abs, saves={"self": None},
         grads={"self": lambda g, ctx: g * apply_op(sgn, (ctx.self,))})
sqrt = Op("sqrt", "SqrtBackward0", _quiet(np.sqrt), saves={"result": None},
          grads={"self": lambda g, ctx: g / _mul_scalar(ctx.result, 2)})
sin = Op("sin", "SinBackward0", _precise(np.sin), saves={"self": None},
         grads={"self": lambda g, ctx: g * ctx.self.cos()})
cos = Op("cos", "CosBackward0", _precise(np.cos), saves={"self": None},
         grads={"self": lambda g, ctx: g * -ctx.self.sin()})
clamp = Op("clamp", "ClampBackward1", _clamp_forward, saves={"self": None}, saved_attrs=("max", "min"),
           grads={"self": _clamp_backward})
clone = Op("clone", "CloneBackward0", np.copy, grads={"self": lambda g, ctx: g})


def _cast(x, dtype):
    # PyTorch converts to float16 and bfloat16 through float32 (two roundings from float64
    # or int64)
    with np.errstate(over="ignore"):        # too large for float16: inf, silently
        if dtype.np.char in "eE" and x.dtype != dtype.np:
            x = x.astype(np.float32)
        return x.astype(dtype.np)


to_copy = Op("_to_copy", "ToCopyBackward0", lambda x, dtype, self_dtype: _cast(x, dtype), casts=True,
             grads={"self": lambda g, ctx: g.to(ctx.self_dtype)})

# --- reductions ---------------------------------------------------------------------
sum = Op("sum", "SumBackward0", np.sum, saved_attrs=("self_sym_sizes",),
         grads={"self": lambda g, ctx: g.expand(ctx.self_sym_sizes)})
sum_dim = Op("sum", "SumBackward1", lambda x, dim, keepdim: np.sum(x, axis=dim, keepdims=keepdim),
             saved_attrs=("dim", "keepdim", "self_sym_sizes"),
             grads={"self": lambda g, ctx: _restore_dims(g, ctx).expand(ctx.self_sym_sizes)},
             aten="sum.dim_IntList")
mean = Op("mean", "MeanBackward0", np.mean, saved_attrs=("self_sym_numel", "self_sym_sizes"),
          grads={"self": lambda g, ctx: g.expand(ctx.self_sym_sizes) / float(ctx.self_sym_numel)})
mean_dim = Op("mean", "MeanBackward1", lambda x, dim, keepdim: np.mean(x, axis=dim, keepdims=keepdim),
              saved_attrs=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
              grads={"self": lambda g, ctx: _restore_dims(g, ctx).expand(ctx.self_sym_sizes)
                     / float(np.prod([ctx.self_sym_sizes[d] for d in ctx.dim]))}, aten="mean.dim")
max = Op("max", "MaxBackward1", np.max, saves={"self": None, "result": None},
         grads={"self": _evenly_distribute_backward})
min = Op("min", "MinBackward1", np.min, saves={"self": None, "result": None},
         grads={"self": _evenly_distribute_backward})
max_dim = Op("max", "MaxBackward0", _max_dim_forward, multi_output=True, saves={"indices": None},
             saved_attrs=("dim", "keepdim", "self_sym_sizes"),
             grads={"self": lambda grads, ctx: _select_backward(grads[0], ctx)}, aten="max.dim")
min_dim = Op("min", "MinBackward0", lambda x, **kw: _max_dim_forward(x, reduce=np.argmin, **kw),
             multi_output=True, saves={"indices": None}, saved_attrs=("dim", "keepdim", "self_sym_sizes"),
             grads={"self": lambda grads, ctx: _select_backward(grads[0], ctx)}, aten="min.dim")
topk = Op("topk", "TopkBackward0", _topk_forward, multi_output=True, saves={"indices": None},
          saved_attrs=("dim", "self_sym_sizes"), grads={"self": _topk_backward})
# ``stable=`` given (True or False) is aten's ``sort.stable`` overload, ``SortBackward1``.
sort = Op("sort", "SortBackward0", _sort_forward, multi_output=True, saves={"indices": None},
          saved_attrs=("dim", "self_sym_sizes"), grads={"self": _sort_backward})
sort_stable = Op("sort", "SortBackward1", _sort_forward, multi_output=True, saves={"indices": None},
                 saved_attrs=("dim", "self_sym_sizes"), grads={"self": _sort_backward})
norm = Op("linalg_vector_norm", "LinalgVectorNormBackward0",
          _quiet(lambda x, ord, dim, keepdim: np.sqrt(np.sum(x * x, axis=dim, keepdims=keepdim))),
          saves={"self": None, "result": None}, saved_attrs=("dim", "keepdim", "ord"),
          grads={"self": lambda g, ctx: _norm_backward(g, ctx)})
softmax = Op("_softmax", "SoftmaxBackward0", _quiet(_softmax), saves={"result": None}, saved_attrs=("dim",),
             grads={"self": lambda g, ctx: apply_op(softmax_backward, (g, ctx.result), {"dim": ctx.dim})})
log_softmax = Op("_log_softmax", "LogSoftmaxBackward0", _quiet(_log_softmax), saves={"result": None},
                 saved_attrs=("dim",),
                 grads={"self": lambda g, ctx: apply_op(log_softmax_backward, (g, ctx.result),
                                                        {"dim": ctx.dim})})


# --- shapes --------------------------------------------------------------------------
def _reshape_back(g, ctx):
    """The backward of a view that only changes the shape: ``g`` in the input's shape."""
    return g.reshape(ctx.self_sym_sizes)


view = Op("view", "ViewBackward0", lambda x, size: x.reshape(size), view=True,
          saved_attrs=("self_sym_sizes",),
          grads={"self": _reshape_back})
unsafe_view = Op("_unsafe_view", "UnsafeViewBackward0", lambda x, size: x.reshape(size),
                 saved_attrs=("self_sym_sizes",),
                 grads={"self": _reshape_back})
transpose = Op("transpose", "TransposeBackward0", lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
               view=True, saved_attrs=("dim0", "dim1"),
               grads={"self": lambda g, ctx: g.transpose(ctx.dim0, ctx.dim1)}, aten="transpose.int")
t = Op("t", "TBackward0", lambda x: x.T, view=True, grads={"self": lambda g, ctx: g.t()})
triu = Op("triu", "TriuBackward0", lambda x, diagonal: np.triu(x, diagonal), saved_attrs=("diagonal",),
          grads={"self": lambda g, ctx: apply_op(triu, (g,), {"diagonal": ctx.diagonal})})
tril = Op("tril", "TrilBackward0", lambda x, diagonal: np.tril(x, diagonal), saved_attrs=("diagonal",),
          grads={"self": lambda g, ctx: apply_op(tril, (g,), {"diagonal": ctx.diagonal})})
trace = Op("trace", "TraceBackward0", np.trace, saved_attrs=("self_sym_sizes",),
           grads={"self": lambda g, ctx: g * _mask(np.eye(*ctx.self_sym_sizes, dtype=bool), g)})
permute = Op("permute", "PermuteBackward0", lambda x, dims: np.transpose(x, dims),
             view=True, saved_attrs=("dims",),
             grads={"self": lambda g, ctx: g.permute(*_inverse([d % len(ctx.dims) for d in ctx.dims]))})
unsqueeze = Op("unsqueeze", "UnsqueezeBackward0", lambda x, dim: np.expand_dims(x, dim),
               view=True, saved_attrs=("dim",), grads={"self": lambda g, ctx: g.squeeze(ctx.dim)})
squeeze = Op("squeeze", "SqueezeBackward0", np.squeeze, saved_attrs=("self_sym_sizes",),
             view=True, grads={"self": _reshape_back})
squeeze_dim = Op("squeeze", "SqueezeBackward1",
                 lambda x, dim: np.squeeze(x, dim) if x.ndim and x.shape[dim] == 1 else x,
                 view=True, saved_attrs=("dim", "self_sym_sizes"), grads={"self": _reshape_back},
                 aten="squeeze.dim")
squeeze_dims = Op("squeeze", "SqueezeBackward2", lambda x, dim: np.squeeze(x, dim),
                  view=True, saved_attrs=("dim", "self_sym_sizes"), grads={"self": _reshape_back},
                  aten="squeeze.dims")
squeeze_ = Op("squeeze_", "SqueezeBackward4", lambda x, dim: np.squeeze(x, dim),
              view=True, saved_attrs=("dim", "self_sym_sizes"), grads={"self": _reshape_back},
              aten="squeeze_.dim")
expand = Op("expand", "ExpandBackward0", lambda x, size: np.broadcast_to(x, size),
            view=True, saved_attrs=("self_sym_sizes",),
            grads={"self": lambda g, ctx: g.sum_to_size(ctx.self_sym_sizes)})
unbind = Op("unbind", "UnbindBackward0", lambda x, dim: tuple(np.moveaxis(x, dim, 0)),
            multi_output=True, view=True, saved_attrs=("dim",),
            grads={"self": lambda grads, ctx: _stack_or_zeros(grads, ctx.dim)}, aten="unbind.int")
# numpy lays the result of concatenate/stack out like its inputs (a transposed or
# broadcast input gives a non-C-contiguous result); PyTorch's cat/stack are always
# contiguous, which decides whether a later reshape is a view or a copy.
cat = Op("cat", "CatBackward0",
         lambda *xs, dim, sizes: np.ascontiguousarray(np.concatenate(xs, axis=dim)), None,
         saved_attrs=("dim",),
         grads=lambda g, ctx, i: g.narrow(ctx.dim, int(np.sum(ctx.sizes[:i])), ctx.sizes[i]))
stack = Op("stack", "StackBackward0", lambda *xs, dim: np.ascontiguousarray(np.stack(xs, axis=dim)), None,
           saved_attrs=("dim",),
           grads=lambda g, ctx, i: g.select(ctx.dim, i))


def _stack_or_zeros(grads, dim):
    """unbind's backward: outputs that got no gradient contribute zeros."""
    like = next(g for g in grads if g is not None)
    zeros = _tensor_class.Tensor._wrap(np.zeros_like(like._array))
    return apply_op(stack, tuple(g if g is not None else zeros for g in grads), {"dim": dim})


# --- indexing ---------------------------------------------------------------------------
def _scatter_into_zeros(name, node_name):
    """The backward of an indexing op as an op of its own (``select_backward``, ...): scatter
    ``g`` into zeros of the input's shape; repeated indices accumulate."""
    def forward(g, key, shape):
        out = np.zeros(shape, dtype=g.dtype)
        np.add.at(out, key, g)
        return out
    return Op(name, node_name, forward, grads={"self": lambda g, ctx: g[ctx.key]})


select_backward = _scatter_into_zeros("select_backward", "SelectBackwardBackward0")
slice_backward = _scatter_into_zeros("slice_backward", "SliceBackwardBackward0")
index_put = _scatter_into_zeros("_index_put_impl_", "IndexPutImplBackward0")


def _index_backward(scatter):
    return lambda g, ctx: apply_op(scatter, (g,), {"key": ctx.key, "shape": ctx.self_sym_sizes})


def _index_backward_shape(scatter):
    return lambda g, ctx: apply_op(scatter, (g,), {"key": ctx.key, "shape": ctx.shape})


# ``key`` is the numpy key; the other attributes are what PyTorch's nodes show.
# (``...`` at the end keeps a 0-dim result a view of ``x``, as numpy's ``x[0]`` of a 1-D
# array would be a copy.)
select = Op("select", "SelectBackward0", lambda x, key, dim, index: x[key + (Ellipsis,)],
            view=True, saved_attrs=("dim", "index", "self_sym_sizes"),
            grads={"self": _index_backward(select_backward)}, aten="select.int")
slice = Op("slice", "SliceBackward0", lambda x, key, dim, start, end, step: x[key],
           view=True, saved_attrs=("dim", "end", "self_sym_sizes", "start", "step"),
           grads={"self": _index_backward(slice_backward)}, aten="slice.Tensor")
# (Both index nodes also save ``indices``, a tuple of SavedTensors: ``_indexing._save_indices``.)
index = Op("index", "IndexBackward0", lambda x, key: x[key],
           saved_attrs=("self_sym_sizes",), grads={"self": _index_backward(index_put)},
           aten="index.Tensor")


def _index_put_forward(x, values, key, accumulate):
    out = x.copy()
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


def _unselected(g, ctx):
    # The elements index_put_ overwrote get no gradient from before the write.
    hit = np.zeros(g._array.shape, dtype=bool)
    hit[ctx.key] = True
    return g.masked_fill(_tensor_class.Tensor._wrap(hit), 0.0)


# ``t[mask] = v`` / ``t[idx] = v``: aten's index_put_ (accumulate=False), in place.
index_put_ = Op("index_put_", "IndexPutBackward0", _index_put_forward, ("self", "values"),
                saved_attrs=("accumulate",),
                grads={"self": lambda g, ctx: g if ctx.accumulate else _unselected(g, ctx),
                       "values": lambda g, ctx: g[ctx.key]})

# ``index_add(dim, index, source, alpha=)``: ``key`` is the numpy key that picks the rows
# along ``dim``; ``index`` is shown only when the source's gradient needs it, as in PyTorch.
index_add = Op("index_add", "IndexAddBackward0", _index_add_forward, ("self", "source"),
               saves={"source": "source"}, saved_attrs=("alpha", "dim", "index", "source_dim"),
               grads={"self": lambda g, ctx: g, "source": _index_add_source_backward})

# A view whose base was changed in place gets this node (``_views.as_strided_node``); it
# is never applied as a forward op. ``key`` picks the view's elements out of the base.
as_strided_scatter = _scatter_into_zeros("as_strided_scatter", "AsStridedScatterBackward0")
as_strided = Op("as_strided", "AsStridedBackward0", lambda x, key, shape, **_: x[key],
                saved_attrs=("size", "storage_offset", "stride"),
                grads={"self": _index_backward_shape(as_strided_scatter)})

# --- matrix products ------------------------------------------------------------------
def mm_product(a, b):
    """``a @ b`` of two matrices as PyTorch's mm computes it: a sum of one term each
    (``[n, 1] @ [1, m]``, n and m above 1) is the plain product, whose zeros keep their
    sign (-1 * 0 = -0.0), where numpy's BLAS adds it to +0.0 (forward, and the backward
    of a layer with one output: ``x.grad`` prints ``-0.``, as PyTorch's)."""
    if a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1:
        return a * b
    return np.matmul(a, b)


mm = Op("mm", "MmBackward0", mm_product, ("self", "mat2"),
        saves={"mat2": "self", "self": "mat2"},
        saved_attrs=("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"),
        grads={"self": lambda g, ctx: g.mm(ctx.mat2.t()), "mat2": lambda g, ctx: ctx.self.t().mm(g)})
dot = Op("dot", "DotBackward0", np.dot, ("self", "tensor"),
         saves={"self": "tensor", "tensor": "self"},
         grads={"self": lambda g, ctx: g * ctx.tensor, "tensor": lambda g, ctx: g * ctx.self})
mv = Op("mv", "MvBackward0", np.matmul, ("self", "vec"),
        saves={"self": "vec", "vec": "self"},
        grads={"self": lambda g, ctx: g.unsqueeze(1) * ctx.vec,
               "vec": lambda g, ctx: ctx.self.t().matmul(g)})
bmm = Op("matmul", "BmmBackward0", np.matmul, ("self", "other"),
         saves={"other": "self", "self": "other"},
         grads={"self": lambda g, ctx: g.matmul(ctx.other.transpose(-1, -2)),
                "other": lambda g, ctx: ctx.self.transpose(-1, -2).matmul(g)}, aten="bmm.default")

# --- no gradient: comparisons, in-place fills ----------------------------------------------
eq = Op("eq", None, np.equal, ("self", "other"), aten="eq.Tensor")
ne = Op("ne", None, np.not_equal, ("self", "other"), aten="ne.Tensor")
lt = Op("lt", None, np.less, ("self", "other"), aten="lt.Tensor")
le = Op("le", None, np.less_equal, ("self", "other"), aten="le.Tensor")
gt = Op("gt", None, np.greater, ("self", "other"), aten="gt.Tensor")
ge = Op("ge", None, np.greater_equal, ("self", "other"), aten="ge.Tensor")
logical_and = Op("logical_and", None, np.logical_and, ("self", "other"))
logical_or = Op("logical_or", None, np.logical_or, ("self", "other"))
logical_not = Op("logical_not", None, np.logical_not)
sign = Op("sign", "SignBackward0", np.sign, grads={"self": lambda g, ctx: _zeros_like(g)})
round = Op("round", "RoundBackward0", np.round, grads={"self": lambda g, ctx: _zeros_like(g)})
sgn = Op("sgn", "SgnBackward0", np.sign, grads={"self": lambda g, ctx: _zeros_like(g)})
fill = Op("fill_", "FillBackward2", lambda x, value: np.full_like(x, value),
          grads={"self": lambda g, ctx: g * 0.0}, aten="fill_.Scalar")
zero = Op("zero_", "ZeroBackward0", np.zeros_like, grads={"self": lambda g, ctx: g * 0.0})
copy = Op("copy_", "torch::autograd::CopyBackwards",
          lambda x, src: np.broadcast_to(src, x.shape).astype(x.dtype), ("self", "src"),
          grads={"self": lambda g, ctx: g * 0.0, "src": lambda g, ctx: g})


# --- backward formulas that are ops of their own -----------------------------------------
# Where PyTorch's derivative is one kernel (``tanh_backward``, ``threshold_backward``, ...),
# it is one op here too, so a ``create_graph=True`` backward records PyTorch's node
# (``TanhBackwardBackward0``) and its rows give the second derivatives.
def _zeros_like(g):
    return _tensor_class.Tensor._wrap(np.zeros_like(g._array))


def _mul_scalar(t, other):
    """``t * other`` with a Python number, as PyTorch's formulas write it (``MulBackward1``;
    a user's ``x * 2`` is a ``MulBackward0``)."""
    return apply_op(mul_scalar, (t,), {"other": other})


mul_scalar = Op("mul", "MulBackward1", lambda x, other: x * other, saved_attrs=("other",),
                grads={"self": lambda g, ctx: _mul_scalar(g, ctx.other)}, aten="mul.Scalar")
# ``t / n`` with a Python number inside a formula (PyTorch's ``div_(numel)``): ``DivBackward1``.
div_scalar = Op("div", "DivBackward1", lambda x, other: x / other, saved_attrs=("other",),
                grads={"self": lambda g, ctx: apply_op(div_scalar, (g,), {"other": ctx.other})},
                aten="div.Scalar")
tanh_backward = Op("tanh_backward", "TanhBackwardBackward0", lambda g, y: g * (1 - y * y),
                   ("grad_output", "output"), saves={"grad_output": None, "output": None},
                   grads={"grad_output": lambda gg, ctx: apply_op(tanh_backward, (gg, ctx.output)),
                          "output": lambda gg, ctx: _mul_scalar(gg * ctx.grad_output * ctx.output, -2)})
sigmoid_backward = Op("sigmoid_backward", "SigmoidBackwardBackward0", lambda g, y: g * y * (1 - y),
                      ("grad_output", "output"), saves={"grad_output": None, "output": None},
                      grads={"grad_output": lambda gg, ctx: apply_op(sigmoid_backward, (gg, ctx.output)),
                             "output": lambda gg, ctx: gg * ctx.grad_output
                             * (1 - _mul_scalar(ctx.output, 2))})


def _threshold_backward(g, x, threshold):
    """PyTorch's ``x <= threshold ? 0 : g`` bit for bit, as ``np.where(x <= threshold, 0, g)``
    gives it (a NaN or -0.0 gradient becomes +0 where ``x <= threshold``; a NaN ``x`` keeps
    ``g``). It keeps g's bits through an integer mask instead: all ones where g passes, all
    zeros (the bits of +0.0) where it does not. Alone, a 64x256 activation takes 11 us
    instead of np.where's 22 us, and the MLP benchmark's step 1.66 ms instead of 1.79 ms;
    on larger activations (the CNN's 64x32x8x8) both cost the same."""
    bits = np.dtype(f"u{g.dtype.itemsize}")
    mask = (x <= threshold).astype(bits)
    mask -= 1                       # True (1) -> 0, False (0) -> all ones
    return np.bitwise_and(g.view(bits), mask).view(g.dtype)


threshold_backward = Op("threshold_backward", "ThresholdBackwardBackward0", _threshold_backward,
                        ("grad_output", "self"), saves={"self": None}, saved_attrs=("threshold",),
                        grads={"grad_output": lambda gg, ctx: apply_op(
                                   threshold_backward, (gg, ctx.self), {"threshold": ctx.threshold}),
                               "self": lambda gg, ctx: _zeros_like(gg)})
softmax_backward = Op(
    "_softmax_backward_data", "SoftmaxBackwardDataBackward0",
    lambda g, y, dim: y * (g - (g * y).sum(axis=dim, keepdims=True)),
    ("grad_output", "output"), saves={"grad_output": None, "output": None}, saved_attrs=("dim",),
    grads={"grad_output": lambda gg, ctx: apply_op(softmax_backward, (gg, ctx.output), {"dim": ctx.dim}),
           "output": lambda gg, ctx: gg * (ctx.grad_output
                                           - (ctx.grad_output * ctx.output).sum(ctx.dim, keepdim=True))
           - ctx.grad_output * (gg * ctx.output).sum(ctx.dim, keepdim=True)})
log_softmax_backward = Op(
    "_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0",
    lambda g, y, dim: g - _precise(np.exp)(y) * g.sum(axis=dim, keepdims=True),
    ("grad_output", "output"), saves={"grad_output": None, "output": None}, saved_attrs=("dim",),
    grads={"grad_output": lambda gg, ctx: gg - (gg * ctx.output.exp()).sum(ctx.dim, keepdim=True),
           "output": lambda gg, ctx: -gg * ctx.output.exp() * ctx.grad_output.sum(ctx.dim, keepdim=True)})


# --- surface used by hook code: tests, gather, prod, var/std (issue 10) --------------------
all = Op("all", None, lambda x, dim=None, keepdim=False: np.all(x, axis=dim, keepdims=keepdim))
any = Op("any", None, lambda x, dim=None, keepdim=False: np.any(x, axis=dim, keepdims=keepdim))
isnan = Op("isnan", None, np.isnan)
isinf = Op("isinf", None, np.isinf)
isfinite = Op("isfinite", None, np.isfinite)


def _gather_forward(x, dim, index, sparse_grad=False):
    # PyTorch reads only the leading index.shape[d] entries of the other dimensions.
    idx = index._array
    x = x[tuple(np.s_[:] if d == dim else np.s_[:n] for d, n in enumerate(idx.shape))]
    return np.take_along_axis(x, idx, axis=dim)


def _scatter_add_zeros_forward(g, dim, index, shape):
    out = np.zeros(shape, dtype=g.dtype)
    grid = list(np.indices(index._array.shape, sparse=True))
    grid[dim] = index._array
    np.add.at(out, tuple(grid), g)          # repeated indices accumulate
    return out


gather = Op("gather", "GatherBackward0", _gather_forward, saves={"self": None},
            saved_attrs=("dim", "index", "sparse_grad"),
            grads={"self": lambda g, ctx: apply_op(scatter_add_zeros, (g,), {
                "dim": ctx.dim, "index": ctx.index, "shape": ctx.self._array.shape})})


def _scatter_forward(x, src, dim, index):
    out = x.copy()
    np.put_along_axis(out, index._array, src, axis=dim)
    return out


# ``self.scatter(dim, index, src)``: only the source's gradient (gathered back) is needed here.
scatter = Op("scatter", "ScatterBackward0", _scatter_forward, ("self", "src"), saved_attrs=("dim", "index"),
             grads={"src": lambda g, ctx: g.gather(ctx.dim % g.dim(), ctx.index)}, aten="scatter.src")
# gather's backward as one op (``zeros.scatter_add(dim, index, grad)``), so that it has a
# derivative itself: gathering the incoming gradient back.
scatter_add_zeros = Op("scatter_add", "ScatterAddBackward0", _scatter_add_zeros_forward,
                       grads={"self": lambda g, ctx: g.gather(ctx.dim, ctx.index)})


def _prod_backward(g, ctx):
    """d prod / d x_i = the product of the *other* elements of x_i's slice (PyTorch's
    prod_backward). Without zeros that is ``result / x_i``; with zeros it is computed
    directly (:func:`_prod_of_others`), which stays right for higher derivatives."""
    x, result = ctx.self, ctx.result
    dim = getattr(ctx, "dim", None)         # prod(x) has no dim, prod(x, dim) has one
    if dim is not None:
        dim %= x.dim()
    if dim is None:
        g = g.expand(x._array.shape)
    elif not ctx.keepdim:
        g, result = g.unsqueeze(dim), result.unsqueeze(dim)
    if not (x._array == 0).any():
        return g * result / x
    if dim is None:
        return g * _prod_of_others(x.reshape(-1), 0).reshape(x._array.shape)
    return g * _prod_of_others(x, dim)


def _prod_of_others(x, dim):
    """``out_i = prod_{j != i} x_j`` along ``dim``: x repeated along a new axis ``dim``
    (indexing i), its diagonal set to 1, multiplied out along axis ``dim + 1`` (j).
    O(n**2) memory in the slice length, so used only when x has zeros."""
    shape = x._array.shape
    n = shape[dim]
    rows = x.unsqueeze(dim).expand(shape[:dim] + (n,) + shape[dim:])
    diagonal = np.eye(n, dtype=bool).reshape((n, n) + (1,) * (len(shape) - dim - 1))
    return rows.masked_fill(_tensor_class.Tensor._wrap(diagonal), 1.0).prod(dim + 1)


prod = Op("prod", "ProdBackward0", lambda x: np.prod(x), saves={"self": None, "result": None},
          grads={"self": _prod_backward})
prod_dim = Op("prod", "ProdBackward1", lambda x, dim, keepdim: np.prod(x, axis=dim, keepdims=keepdim),
              saves={"self": None, "result": None}, saved_attrs=("dim", "keepdim"),
              grads={"self": _prod_backward}, aten="prod.dim_int")


def _reduced_count(shape, dim):
    """How many elements each output of a reduction over ``dim`` (None: all) sums."""
    return int(np.prod(shape if dim is None else [shape[d] for d in dim]))


def _dof(shape, dim, correction):
    return _reduced_count(shape, dim) - (1 if correction is None else correction)


def _var_forward(x, dim, correction, keepdim):
    dof = _dof(x.shape, dim, correction)
    if dof <= 0:
        warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=5)
    with np.errstate(all="ignore"):
        mean = np.mean(x, axis=dim, keepdims=True)
        squares = np.sum(np.square(x - mean), axis=dim, keepdims=keepdim)
        return (squares / np.asarray(np.maximum(dof, 0), dtype=x.dtype)).astype(x.dtype, copy=False)


def _keep(g, ctx):
    """``g`` with the reduced dimensions put back (size 1), so it broadcasts to ``self``."""
    if ctx.keepdim:
        return g
    dims = range(len(ctx.self._array.shape)) if ctx.dim is None else ctx.dim
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def _var_backward(g, ctx):
    """PyTorch's var_backward: ``2 (x - mean) / (N - correction)`` times the gradient."""
    x = ctx.self
    dims = tuple(range(x.dim())) if ctx.dim is None else ctx.dim
    dof = _dof(x._array.shape, ctx.dim, ctx.correction)
    return _keep(g, ctx) * (2.0 / dof) * (x - x.mean(dims, keepdim=True))


def _std_backward(g, ctx, result=None):
    # d std = d var / (2 std); a zero std gives a zero gradient, as in PyTorch.
    result = ctx.result if result is None else result
    g = (g / (result * 2)).masked_fill(_tensor_class.Tensor._wrap(result._array == 0), 0.0)
    return _var_backward(g, ctx)


def _var_mean_backward(grads, ctx, std=False):
    g_var, g_mean = grads
    out = None
    if g_var is not None:
        out = _std_backward(g_var, ctx, ctx.result0) if std else _var_backward(g_var, ctx)
    if g_mean is not None:
        n = _reduced_count(ctx.self._array.shape, ctx.dim)
        term = _keep(g_mean, ctx).expand(ctx.self._array.shape) / float(n)
        out = term if out is None else out + term
    return out


var = Op("var", "VarBackward0", _var_forward, saves={"self": None},
         saved_attrs=("correction", "dim", "keepdim"), grads={"self": _var_backward}, aten="var.correction")
std = Op("std", "StdBackward0", _quiet(lambda x, **kw: np.sqrt(_var_forward(x, **kw))),
         saves={"self": None, "result": None}, saved_attrs=("correction", "dim", "keepdim"),
         grads={"self": _std_backward}, aten="std.correction")
var_mean = Op("var_mean", "VarMeanBackward0",
              lambda x, dim, correction, keepdim: (
                  _var_forward(x, dim, correction, keepdim),
                  np.mean(x, axis=dim, keepdims=keepdim).astype(x.dtype, copy=False)),
              multi_output=True, saves={"self": None}, saved_attrs=("correction", "dim", "keepdim"),
              grads={"self": _var_mean_backward}, aten="var_mean.correction")
std_mean = Op("std_mean", "StdMeanBackward0",
              _quiet(lambda x, dim, correction, keepdim: (
                  np.sqrt(_var_forward(x, dim, correction, keepdim)),
                  np.mean(x, axis=dim, keepdims=keepdim).astype(x.dtype, copy=False))),
              multi_output=True, saves={"self": None, "result0": None},
              saved_attrs=("correction", "dim", "keepdim"),
              grads={"self": lambda grads, ctx: _var_mean_backward(grads, ctx, std=True)},
              aten="std_mean.correction")
