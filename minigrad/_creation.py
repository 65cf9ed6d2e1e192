"""Tensor factories, the random generator, and the functions of the top-level namespace
(``minigrad.exp(x)`` is ``x.exp()``)."""
import builtins
import copy

import numpy as np

from . import _ops as ops
from . import _ranges, dtypes
from ._device import META, check_device
from ._dispatch import apply_op
from ._meta import MetaArray
from ._tensor import Tensor, check_can_require_grad
from ._tensor_methods import _as_tensor, _dim, _shape_arg

_generator = [np.random.default_rng(0)]


def manual_seed(seed):
    """``torch.manual_seed``: seeds minigrad's numpy generator (not PyTorch's stream:
    the same seed gives different numbers than in PyTorch)."""
    _generator[0] = np.random.default_rng(seed)
    return _generator[0]


def get_rng_state():
    """``torch.get_rng_state()``: the state of the generator that ``rand``, ``randn`` and
    dropout draw from. PyTorch returns a ByteTensor; minigrad returns numpy's state dict
    for its generator (a copy). Use it only to hand back to :func:`set_rng_state`."""
    return copy.deepcopy(_generator[0].bit_generator.state)


def set_rng_state(new_state):
    """``torch.set_rng_state(state)``: put back a state from :func:`get_rng_state`; the
    draws that follow repeat the ones made after it was taken."""
    _generator[0].bit_generator.state = copy.deepcopy(new_state)


def _rng():
    return _generator[0]


def _new(data, dtype, requires_grad, device=None):
    np_dtype = dtypes.to_numpy_dtype(dtype) or (np.float32 if data.dtype.kind == "f" else data.dtype)
    if check_device(device) is META:        # a shape and a dtype, no data
        t = Tensor._wrap(MetaArray(data.shape, np_dtype))
    else:
        t = Tensor._wrap(np.asarray(data, dtype=np_dtype, order="C"))
    if requires_grad:
        check_can_require_grad(t._array)
        t.requires_grad = True
    return t


def tensor(data, dtype=None, requires_grad=False, device=None):
    """``torch.tensor(data)``: copies ``data``; floats default to float32."""
    device = check_device(device)
    if isinstance(data, Tensor):
        data = data._array
    np_dtype = dtypes.to_numpy_dtype(dtype)
    if np_dtype is not None and np_dtype.char in "eE":     # through float32, as PyTorch converts
        arr = np.array(data, dtype=np.float32).astype(np_dtype)
    else:
        arr = np.array(data, dtype=np_dtype)
    if np_dtype is None:
        if arr.dtype.kind == "f":
            # a numpy array or scalar keeps float64/float16; Python floats become float32
            if not (isinstance(data, (np.ndarray, np.generic)) and data.dtype in (np.float64, np.float16)):
                arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu":
            arr = arr.astype(np.int64)
        elif arr.dtype.kind not in "b":
            arr = arr.astype(np.float32)
    t = Tensor._wrap(MetaArray(arr.shape, arr.dtype) if device is META else arr)
    if requires_grad:
        check_can_require_grad(arr)
        t.requires_grad = True
    return t


def zeros(*size, dtype=None, requires_grad=False, device=None):
    return _new(np.zeros(_shape_arg(size)), dtype, requires_grad, device)


def ones(*size, dtype=None, requires_grad=False, device=None):
    return _new(np.ones(_shape_arg(size)), dtype, requires_grad, device)


def empty(*size, dtype=None, requires_grad=False, device=None):
    return zeros(*size, dtype=dtype, requires_grad=requires_grad, device=device)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    if dtype is None and isinstance(fill_value, (bool, int)) and not isinstance(fill_value, float):
        dtype = dtypes.bool_ if isinstance(fill_value, bool) else dtypes.int64
    return _new(np.full(tuple(size), fill_value, dtype=np.float64), dtype, requires_grad, device)


# The *_like factories put their tensor on the input's device unless given one.
def zeros_like(t, dtype=None, requires_grad=False, device=None):
    return _new(np.zeros(t._array.shape), dtype or t.dtype, requires_grad, device or t.device)


def ones_like(t, dtype=None, requires_grad=False, device=None):
    return _new(np.ones(t._array.shape), dtype or t.dtype, requires_grad, device or t.device)


def full_like(t, fill_value, dtype=None, requires_grad=False, device=None):
    return _new(np.full(t._array.shape, fill_value, dtype=np.float64), dtype or t.dtype, requires_grad,
                device or t.device)


def _scalar(value):
    return value.item() if isinstance(value, Tensor) else value


def arange(start, end=None, step=1, *, dtype=None, requires_grad=False, device=None):
    """``torch.arange``: ``start, start + step, ...`` below ``end``; int64 when every
    bound is an integer, else float32. Values agree with PyTorch's bit for bit
    (``_ranges.py``), including its length rule ``ceil((end - start) / step)``."""
    if end is None:
        start, end = 0, start
    start, end, step = _scalar(start), _scalar(end), _scalar(step)
    if dtype is None:
        floating = builtins.any(isinstance(v, (float, np.floating)) for v in (start, end, step))
        dtype = dtypes.float32 if floating else dtypes.int64
    np_dtype = dtypes.to_numpy_dtype(dtype)
    return _new(_ranges.arange_values(start, end, step, np_dtype), dtype, requires_grad, device)


def linspace(start, end, steps, *, dtype=None, requires_grad=False, device=None):
    """``torch.linspace``: ``steps`` evenly spaced values from ``start`` to ``end``
    (float32 by default), computed as PyTorch does, so they agree bit for bit."""
    start, end, steps = _scalar(start), _scalar(end), _scalar(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    np_dtype = dtypes.to_numpy_dtype(dtype) or np.dtype(np.float32)
    values = _ranges.linspace_values(start, end, steps, np_dtype) if steps else np.zeros(0, np_dtype)
    return _new(values, dtype or dtypes.float32, requires_grad, device)


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    return _new(np.eye(n, m), dtype, requires_grad, device)


def randn(*size, dtype=None, requires_grad=False, generator=None, device=None):
    return _new(_rng().standard_normal(_shape_arg(size)), dtype, requires_grad, device)


def rand(*size, dtype=None, requires_grad=False, generator=None, device=None):
    return _new(_rng().random(_shape_arg(size)), dtype, requires_grad, device)


def randint(low, high=None, size=(), dtype=None, device=None):
    if high is None:
        low, high = 0, low
    return _new(_rng().integers(low, high, size=tuple(size)), dtype or dtypes.int64, False, device)


def randperm(n, dtype=None, device=None):
    return _new(_rng().permutation(n), dtype or dtypes.int64, False, device)


def from_numpy(array):
    """``torch.from_numpy``: shares memory with ``array``."""
    return Tensor._wrap(np.asarray(array))


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and dtype is None and check_device(device) is data.device:
        return data
    return tensor(data, dtype=dtype, device=device)


# --- functions of the top-level namespace -----------------------------------------------
def stack(tensors, dim=0):
    tensors = tuple(tensors)
    return apply_op(ops.stack, tensors, {"dim": _dim(dim, tensors[0]._array.ndim + 1)})


def cat(tensors, dim=0):
    tensors = tuple(tensors)
    dim = _dim(dim, tensors[0]._array.ndim)
    return apply_op(ops.cat, tensors, {"dim": dim, "sizes": tuple(t._array.shape[dim] for t in tensors)})


def where(condition, input, other):
    condition = _as_tensor(condition)
    return apply_op(ops.where, (_as_tensor(input), _as_tensor(other)), {"condition": condition})


def maximum(input, other):
    return input.maximum(other)


def matmul(input, other):
    return input.matmul(other)


mm = matmul


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(input._array, _as_tensor(other)._array, rtol=rtol, atol=atol,
                            equal_nan=equal_nan))


def equal(input, other):
    return input._array.shape == other._array.shape and bool(np.array_equal(input._array, other._array))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``torch.var_mean``: ``(var, mean)`` from one node, ``VarMeanBackward0``."""
    return tuple(apply_op(ops.var_mean, (input,), input._var_attrs(dim, unbiased, keepdim, correction)))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``torch.std_mean``: ``(std, mean)`` from one node, ``StdMeanBackward0``."""
    return tuple(apply_op(ops.std_mean, (input,), input._var_attrs(dim, unbiased, keepdim, correction)))


def numel(input):
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def _method(name):
    def function(input, *args, **kwargs):
        return getattr(_as_tensor(input), name)(*args, **kwargs)
    function.__name__ = name
    function.__doc__ = f"``minigrad.{name}(input, ...)`` is ``input.{name}(...)``."
    return function


for _name in ("exp", "log", "tanh", "sigmoid", "relu", "abs", "sqrt", "sin", "cos", "clamp",
              "clip", "sum", "mean", "max", "min", "argmax", "softmax", "log_softmax", "reshape",
              "flatten", "transpose", "permute", "unsqueeze", "squeeze", "unbind", "neg",
              "masked_fill", "pow", "add", "sub", "mul", "div", "sign", "t", "clone",
              "detach", "reciprocal", "chunk", "split", "all", "any", "isnan", "isinf",
              "isfinite", "gather", "prod", "var", "std", "ravel", "round", "triu", "tril"):
    globals()[_name] = _method(_name)
del _name
topk = _method("topk")
sort = _method("sort")
index_add = _method("index_add")
