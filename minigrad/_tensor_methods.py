"""The op surface of ``Tensor``: its shape and metadata, conversions, arithmetic and
comparison operators, in-place ops, reductions, shape ops, indexing and ``matmul``.

PyTorch counterpart: ``torch._C.TensorBase``, whose methods PyTorch generates into
``python_variable_methods.cpp``, and which ``torch.Tensor`` (``torch/_tensor.py``)
inherits. Here they are written in the class body of :class:`_TensorMethods` and
copied onto :class:`minigrad.Tensor` when this module is imported (``_tensor.py``
imports it last), so ``Tensor.add`` is ``Tensor``'s own method, and ``_tensor.py``
keeps only what autograd stores on a tensor. Almost every method is a few argument
checks and one ``apply_op`` with a row of the op table (``_ops.py``).
"""
import math
from types import FunctionType

import numpy as np

from . import _device, dtypes, grad_mode, return_types
from . import _ops as ops
from ._dispatch import apply_op
from .amp import autocast_mode
from ._format import tensor_repr
from ._meta import NO_DATA, MetaArray
from ._tensor import Tensor
from .autograd.engine import sum_to

__all__ = ["Size"]


_PYTHON_NUMBERS = (float, int, bool)


def _as_tensor(value, op_name=None):
    """Python scalars become 0-dim "wrapped numbers" (PyTorch's term): they join an op
    with the dtype of the tensor they meet, get no edge, and are never packed by
    saved-tensor hooks.

    With ``op_name``, ``value`` is the ``other`` operand of that op, which PyTorch takes
    as a tensor, a number or a numpy array only: ``None`` or a list is its TypeError
    ("add(): argument 'other' (position 1) must be Tensor, not NoneType"), not a tensor
    of NaNs."""
    if isinstance(value, Tensor):
        return value
    # (a plain float, int or bool, the common case, is recognised by its type first)
    if type(value) in _PYTHON_NUMBERS or isinstance(value, (bool, int, float, np.number)):
        t = Tensor._wrap(np.asarray(value))
        t._python_scalar = value.item() if isinstance(value, np.number) else value
        return t
    if op_name is not None and not isinstance(value, (complex, np.ndarray)):
        raise TypeError(f"{op_name}(): argument 'other' (position 1) must be Tensor, "
                        f"not {type(value).__name__}")
    from ._creation import tensor
    return tensor(value)


class _TensorMethods:
    """The methods below become ``Tensor``'s own (:func:`_attach`); this class is never
    instantiated."""

    __array_priority__ = 1000       # numpy scalars on the left defer to our operators
    __hash__ = object.__hash__      # hashed by identity, like torch.Tensor (despite __eq__)

    # --- basic properties --------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._array.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self._array.shape[dim]

    def dim(self):
        return self._array.ndim

    ndim = property(dim)

    def numel(self):
        return int(self._array.size)

    def nelement(self):
        """``Tensor.nelement()``: another name for ``numel()``."""
        return self.numel()

    def element_size(self):
        """``Tensor.element_size()``: bytes per element (4 for float32)."""
        return int(self._array.itemsize)

    itemsize = property(element_size)
    nbytes = property(lambda self: int(self._array.nbytes))

    @property
    def dtype(self):
        return dtypes.from_numpy_dtype(self._array.dtype)

    @property
    def device(self):
        """``Tensor.device``: ``device(type='cpu')``, or ``device(type='meta')`` for a
        tensor with no data (``_meta.py``)."""
        return _device.META if type(self._array) is MetaArray else _device.CPU

    is_cuda = False
    is_meta = property(lambda self: type(self._array) is MetaArray)
    is_cpu = property(lambda self: type(self._array) is not MetaArray)

    def get_device(self):
        """``Tensor.get_device()``: -1 for a CPU tensor."""
        return -1

    def is_floating_point(self):
        return dtypes.is_floating(self._array.dtype)

    def numpy(self, *, force=False):
        """``Tensor.numpy()``: the numpy array itself (shared memory). As in PyTorch it is
        refused for a tensor that requires grad while grad mode is on (not under
        ``no_grad``, nor inside a custom Function's ``forward``), unless ``force=True``."""
        if self.is_meta:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first.")
        if self.requires_grad and grad_mode.is_grad_enabled() and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if self._array.dtype == dtypes.bfloat16.np:     # numpy itself has no bfloat16
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._array

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(t)``: as in PyTorch, the same as ``t.numpy()`` (so it refuses a
        tensor that requires grad)."""
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def item(self):
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted to Scalar")
        return self._array.item()

    def tolist(self):
        return self._array.tolist()

    def data_ptr(self):
        return self._array.__array_interface__["data"][0]

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self):
        return iter(self.unbind(0))

    def __bool__(self):
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._array)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        return int(self.item())

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        """``Tensor.__format__``: a 0-dim tensor formats its Python number (``f"{loss:.3f}"``);
        any other tensor formats as ``object`` does (its ``str``, and only with no spec)."""
        if self._array.ndim == 0 and type(self) is Tensor:
            return format(self._array.item(), spec)
        return object.__format__(self, spec)

    def add_(self, other, alpha=1):
        return self._inplace(lambda s: s.add(other, alpha=alpha), (_as_tensor(other, "add_"),))

    def sub_(self, other, alpha=1):
        return self._inplace(lambda s: s.sub(other, alpha=alpha), (_as_tensor(other, "sub_"),))

    def mul_(self, other):
        return self._inplace(lambda s: s * other, (_as_tensor(other, "mul_"),))

    def div_(self, other):
        return self._inplace(lambda s: s / other, (_as_tensor(other, "div_"),))

    def clamp_(self, min=None, max=None):
        return self._inplace(lambda s: s.clamp(min, max))

    def zero_(self):
        return self._inplace(lambda s: apply_op(ops.zero, (s,)))

    def fill_(self, value):
        return self._inplace(lambda s: apply_op(ops.fill, (s,), {"value": value}))

    def copy_(self, src):
        return self._inplace(lambda s: apply_op(ops.copy, (s, _as_tensor(src))), (_as_tensor(src, "copy_"),))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return self._fill_random(lambda rng, shape: rng.normal(mean, std, shape))

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        return self._fill_random(lambda rng, shape: rng.uniform(a, b, shape))

    def _fill_random(self, draw):
        """The in-place random fills: ``draw(generator, shape)`` from minigrad's global
        generator (``manual_seed``) overwrites the values, as one in-place write (a meta
        tensor has none: nothing is drawn). A ``generator=`` argument is accepted and
        ignored: minigrad has one generator."""
        from ._creation import _rng
        self._notify_inplace()
        if not self.is_meta:
            with grad_mode.no_grad():
                self._array[...] = draw(_rng(), self._array.shape)
        self._version_counter[0] += 1
        return self

    # --- out-of-place ops: all go through the op table -----------------------------
    def _binary(self, op, other):
        return apply_op(op, (self, _as_tensor(other, op.name)))

    def add(self, other, *, alpha=1):
        return apply_op(ops.add, (self, _as_tensor(other, "add")), {"alpha": alpha})

    def sub(self, other, *, alpha=1):
        return apply_op(ops.sub, (self, _as_tensor(other, "sub")), {"alpha": alpha})

    def mul(self, other): return apply_op(ops.mul, (self, _as_tensor(other, "mul")))
    def div(self, other): return self._binary(ops.div, other)
    def eq(self, other): return self._binary(ops.eq, other)
    def pow(self, exponent): return self ** exponent
    def neg(self): return -self
    # exp, log, tanh, sigmoid, relu, abs, sqrt, sin, cos, sign, reciprocal and clone
    # apply one op row to ``self`` alone: they are made below the class, from the rows.

    # Operators (wrapped below the class: a TypeError becomes NotImplemented).
    __add__ = __radd__ = add
    __sub__ = sub
    __mul__ = __rmul__ = mul
    __truediv__ = div
    __eq__ = eq

    def __rsub__(self, other):
        if isinstance(other, (bool, int, float, np.number)):    # ``2 - x``: rsub with a Scalar
            return apply_op(ops.rsub, (self,), {"other": other, "alpha": 1})
        return _as_tensor(other, "sub").sub(self)

    def __rtruediv__(self, other): return self.reciprocal() * other
    def __matmul__(self, other): return self.matmul(other)
    def __rmatmul__(self, other): return _as_tensor(other, "matmul").matmul(self)
    def __neg__(self): return apply_op(ops.neg, (self,))

    def __pow__(self, exponent):
        if isinstance(exponent, Tensor):
            return apply_op(ops.pow_tensor, (self, exponent))
        return apply_op(ops.pow_scalar, (self,), {"exponent": exponent})

    def __rpow__(self, base):
        return apply_op(ops.pow_scalar_base, (self,), {"self": base})

    def __iadd__(self, other): return self.add_(other)
    def __isub__(self, other): return self.sub_(other)
    def __imul__(self, other): return self.mul_(other)
    def __itruediv__(self, other): return self.div_(other)

    def __ne__(self, other): return self._binary(ops.ne, other)
    def __lt__(self, other): return self._binary(ops.lt, other)
    def __le__(self, other): return self._binary(ops.le, other)
    def __gt__(self, other): return self._binary(ops.gt, other)
    def __ge__(self, other): return self._binary(ops.ge, other)
    def __and__(self, other): return self._binary(ops.logical_and, other)
    def __or__(self, other): return self._binary(ops.logical_or, other)
    def __invert__(self): return apply_op(ops.logical_not, (self,))

    def maximum(self, other): return apply_op(ops.maximum, (self, _as_tensor(other, "maximum")))

    def clamp(self, min=None, max=None):
        return apply_op(ops.clamp, (self,), {"min": min, "max": max})

    clip = clamp

    def to(self, *args, **kwargs):
        """``Tensor.to``: ``to(dtype)``, ``to(device, dtype)``, ``to(other_tensor)`` (its
        dtype), keywords ``device=``, ``dtype=``, ``copy=``, ``non_blocking=``. Returns
        ``self`` when nothing changes (unless ``copy=True``), else a ``ToCopyBackward0``
        copy. Only the CPU exists: any other device raises."""
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        flags = {"non_blocking": kwargs.pop("non_blocking", False), "copy": kwargs.pop("copy", False)}
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        args = list(args)
        if args and isinstance(args[0], Tensor):
            dtype = args.pop(0).dtype
        elif args and isinstance(args[0], (str, _device.device, int)) and not isinstance(args[0], bool):
            device = args.pop(0)
        if args and not isinstance(args[0], bool):
            dtype = args.pop(0)
        for name, value in zip(("non_blocking", "copy"), args):
            flags[name] = value
        device = self.device if device is None else _device.check_device(device)
        if dtype is not None:
            dtype = dtypes.from_numpy_dtype(dtypes.to_numpy_dtype(dtype))
        if (dtype is None or dtype is self.dtype) and device is self.device and not flags["copy"]:
            return self
        if self.is_meta and device is not _device.META:
            raise NotImplementedError(NO_DATA)
        out = apply_op(ops.to_copy, (self,), {"dtype": dtype or self.dtype, "self_dtype": self.dtype})
        if device is _device.META:
            out._array = MetaArray(out._array.shape, out._array.dtype)
        return out

    def cuda(self, device=None, non_blocking=False):
        """``Tensor.cuda()``: minigrad has no GPU, so this raises (as PyTorch built
        without CUDA does)."""
        _device.check_device("cuda")

    def half(self): return self.to(dtypes.float16)
    def bfloat16(self): return self.to(dtypes.bfloat16)
    def float(self): return self.to(dtypes.float32)
    def double(self): return self.to(dtypes.float64)
    def long(self): return self.to(dtypes.int64)
    def int(self): return self.to(dtypes.int32)
    def bool(self): return self.to(dtypes.bool_)
    def cpu(self): return self.to(_device.CPU)
    def contiguous(self): return self

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """``Tensor.type()``: the legacy type name (``'torch.FloatTensor'``); with an
        argument (``minigrad.DoubleTensor``, ``"torch.DoubleTensor"`` or a dtype), the
        tensor converted to it (``self`` when it already is)."""
        from ._legacy import dtype_of_type_argument
        if dtype is None:
            return "torch." + self.dtype.tensor_type
        return self.to(dtype_of_type_argument(dtype))

    # reductions
    def sum(self, dim=None, keepdim=False):
        return _reduce(self, ops.sum, ops.sum_dim, dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        return _reduce(self, ops.mean, ops.mean_dim, dim, keepdim)

    def max(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        if dim is None:
            return apply_op(ops.max, (self,))
        values, indices = apply_op(ops.max_dim, (self,),
                                   {"dim": _dim(dim, self._array.ndim), "keepdim": keepdim})
        return return_types.max(values, indices)

    def min(self, dim=None, keepdim=False):
        if dim is None:
            return apply_op(ops.min, (self,))
        values, indices = apply_op(ops.min_dim, (self,),
                                   {"dim": _dim(dim, self._array.ndim), "keepdim": keepdim})
        return return_types.min(values, indices)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        """``Tensor.topk(k, dim=-1, largest=True, sorted=True)``: the k largest (smallest)
        values along ``dim`` and their indices (node ``TopkBackward0``); always sorted."""
        _dim(dim, self._array.ndim)     # the usual dimension check
        if not 0 <= k <= (self._array.shape[dim] if self._array.ndim else 1):
            raise RuntimeError("selected index k out of range")
        values, indices = apply_op(ops.topk, (self,), {"k": k, "dim": dim, "largest": largest,
                                                       "sorted": sorted})
        return return_types.topk(values, indices)

    def sort(self, dim=-1, descending=False, stable=None):
        """``Tensor.sort(dim=-1, descending=False, stable=None)``: the values along ``dim`` in
        order and the indices they came from. As on PyTorch's CPU, equal values keep their
        order (whatever ``stable`` says) and NaN sorts as the largest value. The node is
        ``SortBackward0``, or ``SortBackward1`` when ``stable=`` is passed (aten's
        ``sort.stable`` overload)."""
        if stable is not None and not isinstance(stable, bool):
            raise TypeError(f"sort(): argument 'stable' must be bool, not {type(stable).__name__}")
        _dim(dim, self._array.ndim)
        op = ops.sort if stable is None else ops.sort_stable
        values, indices = apply_op(op, (self,), {"dim": dim, "descending": bool(descending)})
        return return_types.sort(values, indices)

    def norm(self, p=2, dim=None, keepdim=False):
        """``Tensor.norm(p=2, dim=None, keepdim=False)``: the Euclidean norm of all
        elements, or along ``dim`` (an int or a tuple of ints); ``p=2`` only."""
        if p not in (2, 2.0, "fro"):
            raise NotImplementedError(f"minigrad's norm supports p=2 only, got p={p!r}")
        if dim is not None:
            dims = dim if isinstance(dim, (tuple, list)) else (dim,)
            dim = tuple(_dim(d, self._array.ndim) for d in dims)
        return apply_op(ops.norm, (self,), {"ord": 2, "dim": dim, "keepdim": keepdim})

    def all(self, dim=None, keepdim=False):
        """``Tensor.all``: True where every element (of the reduced dims) is nonzero; a
        bool tensor, never part of the graph."""
        return _reduce(self, ops.all, ops.all, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        """``Tensor.any``: True where some element (of the reduced dims) is nonzero."""
        return _reduce(self, ops.any, ops.any, dim, keepdim)

    def isnan(self): return apply_op(ops.isnan, (self,))
    def isinf(self): return apply_op(ops.isinf, (self,))
    def isfinite(self): return apply_op(ops.isfinite, (self,))

    def equal(self, other):
        """``Tensor.equal``: a Python bool, True when shapes and values agree (dtypes may differ)."""
        return self._array.shape == other._array.shape and bool(np.array_equal(self._array, other._array))

    def index_add(self, dim, index, source, *, alpha=1):
        """``Tensor.index_add``: a copy with ``alpha * source`` added to the rows ``index``
        picks along ``dim`` (repeated indices add up); node ``IndexAddBackward0``."""
        from ._indexing import index_add_attrs
        return apply_op(ops.index_add, (self, source), index_add_attrs(self, dim, index, source, alpha))

    def index_add_(self, dim, index, source, *, alpha=1):
        """``Tensor.index_add_``: :meth:`index_add` written into this tensor."""
        from ._indexing import index_add_attrs
        attrs = index_add_attrs(self, dim, index, source, alpha)
        return self._inplace(lambda s: apply_op(ops.index_add, (s, source), attrs), (source,))

    def gather(self, dim, index, *, sparse_grad=False):
        """``Tensor.gather``: ``out[i][j] = self[index[i][j]][j]`` for ``dim=0`` (and so on);
        the output has the index's shape (``GatherBackward0``)."""
        nd = self._array.ndim
        if not isinstance(index, Tensor) or index._array.dtype.kind not in "iu":
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        if index._array.ndim != max(nd, 1) and not (nd == 0 and index._array.ndim == 0):
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        dim = dim % max(nd, 1)
        for d, (n_index, n_self) in enumerate(zip(index._array.shape, self._array.shape)):
            if d != dim and n_index > n_self:
                raise RuntimeError(
                    f"Size does not match at dimension {d} expected index {list(index._array.shape)} "
                    f"to be no larger than self {list(self._array.shape)} apart from dimension {dim}")
        size = self._array.shape[dim] if nd else 1
        bad = (index._array < -size) | (index._array >= size)
        if bad.any():
            raise RuntimeError(f"index {int(index._array[bad].flat[0])} is out of bounds for "
                               f"dimension {dim} with size {size}")
        return apply_op(ops.gather, (self,), {"dim": dim, "index": index, "sparse_grad": sparse_grad})

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        """``Tensor.prod``: the product of all elements (``ProdBackward0``) or along one
        dimension (``ProdBackward1``). The gradient is right when elements are zero."""
        x = self if dtype is None else self.to(dtype)
        if dim is None:
            return apply_op(ops.prod, (x,))
        return apply_op(ops.prod_dim, (x,), {"dim": _dim(dim, x._array.ndim), "keepdim": keepdim})

    def _var_attrs(self, dim, unbiased, keepdim, correction):
        """PyTorch's var/std arguments: ``(dim, unbiased, keepdim)`` positionally, or
        ``correction=`` (1, Bessel's correction, by default; 0 gives the biased estimate)."""
        if isinstance(dim, bool):               # var(unbiased)
            dim, unbiased = None, dim
        if unbiased is not None and correction is not None:
            raise TypeError("var(): pass either unbiased or correction, not both")
        if correction is None and unbiased is not None:
            correction = 1 if unbiased else 0
        bare = dim is None and correction is None and not keepdim
        if correction is None and not bare:
            correction = 1          # PyTorch records None only for a bare x.var()
        return {"dim": None if dim is None else _dims(dim, self._array.ndim),
                "correction": correction, "keepdim": keepdim}

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """``Tensor.var``: sum of squared deviations / (N - correction) (``VarBackward0``)."""
        return apply_op(ops.var, (self,), self._var_attrs(dim, unbiased, keepdim, correction))

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """``Tensor.std``: the square root of :meth:`var` (``StdBackward0``)."""
        return apply_op(ops.std, (self,), self._var_attrs(dim, unbiased, keepdim, correction))

    def argmax(self, dim=None, keepdim=False):
        data = self._array.argmax() if dim is None else self._array.argmax(axis=dim)
        if keepdim and dim is not None:
            data = np.expand_dims(data, dim)
        return Tensor._wrap(np.asarray(data, dtype=np.int64))

    def softmax(self, dim):
        return apply_op(ops.softmax, (self,), {"dim": _dim(dim, self._array.ndim)})

    def log_softmax(self, dim):
        return apply_op(ops.log_softmax, (self,), {"dim": _dim(dim, self._array.ndim)})

    def masked_fill(self, mask, value):
        return apply_op(ops.masked_fill, (self,), {"mask": _as_tensor(mask), "value": float(value)})

    # shapes
    def _target_shape(self, shape):
        shape = tuple(_shape_arg(shape))
        size = self._array.size
        known = math.prod(d for d in shape if d != -1)     # (np.prod of a list: 4 us more)
        if shape.count(-1) > 1 or (-1 in shape and (known == 0 or size % known)) or \
                (-1 not in shape and known != size):
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        return tuple(size // known if d == -1 else d for d in shape)

    def view(self, *shape):
        """``Tensor.view``: the same data seen with a new shape (``ViewBackward0``). Like
        PyTorch, only for contiguous data; ``reshape`` copies when needed."""
        size = self._target_shape(shape)
        if not self._array.flags.c_contiguous and size != self._array.shape:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return apply_op(ops.view, (self,), {"size": size})

    def reshape(self, *shape):
        """``Tensor.reshape``: a view when the data is contiguous, else a copy
        (``UnsafeViewBackward0`` over ``CloneBackward0``, as in PyTorch)."""
        size = self._target_shape(shape)
        if self._array.flags.c_contiguous or size == self._array.shape:
            return apply_op(ops.view, (self,), {"size": size})
        copy = self.clone()
        return apply_op(ops.unsafe_view, (copy,), {"size": size})

    def ravel(self):
        """``Tensor.ravel``: the elements as one dimension; a view of contiguous data,
        else a contiguous copy viewed (``ViewBackward0`` over ``CloneBackward0``)."""
        x = self
        if not x._array.flags.c_contiguous:
            x = self.clone()
            x._array = np.ascontiguousarray(x._array)      # a fresh buffer: laid out as PyTorch's
        return apply_op(ops.view, (x,), {"size": (x._array.size,)})

    def view_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        nd = self._array.ndim
        if nd == 0:
            return self.reshape(1)
        start, end = start_dim % nd, end_dim % nd
        shape = self._array.shape
        return self.reshape(shape[:start] + (-1,) + shape[end + 1:])

    def transpose(self, dim0, dim1):
        nd = self._array.ndim
        return apply_op(ops.transpose, (self,), {"dim0": _dim(dim0, nd), "dim1": _dim(dim1, nd)})

    def t(self):
        if self._array.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._array.ndim}D")
        return apply_op(ops.t, (self,))

    def triu(self, diagonal=0):
        return apply_op(ops.triu, (self,), {"diagonal": diagonal})

    def tril(self, diagonal=0):
        return apply_op(ops.tril, (self,), {"diagonal": diagonal})

    def trace(self):
        if self._array.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self._array.ndim}")
        return apply_op(ops.trace, (self,))

    @property
    def T(self):
        return self.permute(*reversed(range(self._array.ndim)))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def permute(self, *dims):
        dims = tuple(_dim(d, self._array.ndim) for d in _shape_arg(dims))
        return apply_op(ops.permute, (self,), {"dims": dims})

    def unsqueeze(self, dim):
        return apply_op(ops.unsqueeze, (self,), {"dim": _dim(dim, self._array.ndim + 1)})

    def squeeze(self, dim=None):
        if dim is None:
            return apply_op(ops.squeeze, (self,))
        if isinstance(dim, (tuple, list)):
            nd = max(self._array.ndim, 1)
            dims = tuple(sorted(d % nd for d in dim if self._array.ndim and self._array.shape[d % nd] == 1))
            return apply_op(ops.squeeze_dims, (self,), {"dim": dims})
        return apply_op(ops.squeeze_dim, (self,), {"dim": _dim(dim, self._array.ndim)})

    def expand(self, *sizes):
        sizes = _shape_arg(sizes)
        lead = len(sizes) - self._array.ndim
        sizes = tuple(self._array.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        return apply_op(ops.expand, (self,), {"size": sizes})

    def expand_as(self, other):
        return self.expand(other.shape)

    def sum_to_size(self, *shape):
        return sum_to(self, tuple(_shape_arg(shape)))

    def unbind(self, dim=0):
        return apply_op(ops.unbind, (self,), {"dim": _dim(dim, self._array.ndim)})

    def chunk(self, chunks, dim=0):
        size = -(-self._array.shape[dim] // chunks)
        return self.split(size, dim)

    def split(self, size, dim=0):
        n = self._array.shape[dim]
        return tuple(self[(slice(None),) * (dim % self._array.ndim) + (slice(i, i + size),)]
                     for i in range(0, n, size))

    def select(self, dim, index):
        return self[(slice(None),) * (dim % self._array.ndim) + (index,)]

    def narrow(self, dim, start, length):
        return self[(slice(None),) * (dim % self._array.ndim) + (slice(start, start + length),)]

    def __getitem__(self, key):
        from ._indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key, value):
        from ._indexing import setitem
        setitem(self, key, value)

    def matmul(self, other):
        """``torch.matmul``, decomposed as PyTorch does, so the nodes have its names:
        ``mm``, ``dot``, ``mv``; a vector on the left is unsqueezed and squeezed back; a
        batch on the left of a matrix is folded into one ``mm``."""
        other = _as_tensor(other, "matmul")
        if autocast_mode._active:       # autocast casts matmul's inputs, before it decomposes
            self, other = autocast_mode.cast_function_inputs("matmul", self, other)
        a, b = self._array.ndim, other._array.ndim
        if a == 2 and b == 2:
            if self._array.shape[1] != other._array.shape[0]:
                raise RuntimeError("mat1 and mat2 shapes cannot be multiplied "
                                   f"({self._array.shape[0]}x{self._array.shape[1]} and "
                                   f"{other._array.shape[0]}x{other._array.shape[1]})")
            return apply_op(ops.mm, (self, other))
        if a == 1 and b == 1:
            return apply_op(ops.dot, (self, other))
        if a == 2 and b == 1:
            return apply_op(ops.mv, (self, other))
        if a == 1 and b == 2:
            return apply_op(ops.squeeze_, (self.unsqueeze(0).matmul(other),), {"dim": 0})
        if a > 2 and b in (1, 2):
            out_shape = self._array.shape[:-1] + other._array.shape[1:]
            folded = self.reshape(-1, self._array.shape[-1]).matmul(other)
            return apply_op(ops.unsafe_view, (folded,), {"size": out_shape})
        if a == 1:      # a vector times a batch of matrices: a batch of row vectors
            return apply_op(ops.squeeze_, (self.unsqueeze(0).matmul(other),), {"dim": -2})
        return apply_op(ops.bmm, (self, other))

    mm = matmul


# Bookkeeping every class body has; everything else in _TensorMethods is a method.
_NOT_METHODS = ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                "__firstlineno__", "__static_attributes__")


def _attach(name, method):
    """Make ``method`` ``Tensor.<name>``, named as a method of ``Tensor``."""
    function = method.fget if isinstance(method, property) else method
    if isinstance(function, FunctionType):
        function.__qualname__ = f"Tensor.{function.__name__}"
    setattr(Tensor, name, method)


for _name, _method in vars(_TensorMethods).items():
    if _name not in _NOT_METHODS:
        _attach(_name, _method)


def _type_error_to_not_implemented(name):
    """PyTorch's binary operators answer a TypeError with NotImplemented, so Python
    tries the other operand and then raises its own "unsupported operand type(s) for
    +: 'Tensor' and 'NoneType'"; ``t == None`` is False, as for any other object."""
    operator = getattr(Tensor, name)

    def wrapped(self, other):
        try:
            return operator(self, other)
        except TypeError:
            return NotImplemented
    wrapped.__name__ = name
    _attach(name, wrapped)


for _name in ("add radd sub rsub mul rmul truediv rtruediv matmul rmatmul pow rpow iadd isub imul "
              "itruediv eq ne lt le gt ge and or").split():
    _type_error_to_not_implemented(f"__{_name}__")


def _unary_method(op):
    def method(self):
        return apply_op(op, (self,))
    method.__name__ = op.name
    method.__doc__ = f"``Tensor.{op.name}()``: the ``{op.name}`` op row; its node is ``{op.node_name}``."
    return method


for _op in (ops.exp, ops.log, ops.tanh, ops.sigmoid, ops.relu, ops.abs, ops.sqrt, ops.sin,
            ops.cos, ops.sign, ops.round, ops.reciprocal, ops.clone):
    _attach(_op.name, _unary_method(_op))
_attach("__abs__", Tensor.abs)      # abs(t)


def _make_inplace(name):
    def method(self, *args, **kwargs):
        return self._inplace(lambda s: getattr(s, name)(*args, **kwargs), args)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}``: ``x.{name}_()`` is ``x.{name}()`` written into ``x``."
    return method


for _name in ("exp", "log", "tanh", "sigmoid", "relu", "abs", "sqrt", "sin", "cos", "neg",
              "pow", "reciprocal"):
    _attach(_name + "_", _make_inplace(_name))
del _name, _method, _op


class Size(tuple):
    """``torch.Size``: a tuple of ints; prints as ``minigrad.Size([2, 3])``."""

    __module__ = "minigrad"

    def __repr__(self):
        return f"minigrad.Size([{', '.join(str(s) for s in self)}])"

    def numel(self):
        return math.prod(self)


def _shape_arg(shape):
    """``reshape(2, 3)`` or ``reshape((2, 3))``: the sizes as one tuple."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _dim(dim, ndim):
    """Check ``dim`` against a tensor of ``ndim`` dimensions and return it as given: like
    PyTorch's nodes, minigrad's keep the dim the caller wrote (``-1`` included)."""
    low, high = -max(ndim, 1), max(ndim, 1) - 1
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return dim


def _dims(dim, ndim):
    """A reduction's dims as a tuple, each checked by ``_dim``."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(_dim(d, ndim) for d in dims)


def _reduce(t, op, dim_op, dim, keepdim):
    """``sum``, ``mean``, ``all``, ``any``: ``op`` over every element when ``dim`` is
    None, else ``dim_op`` over the checked ``dim`` (an int or a tuple of ints)."""
    if dim is None:
        return apply_op(op, (t,))
    return apply_op(dim_op, (t,), {"dim": _dims(dim, t._array.ndim), "keepdim": keepdim})
