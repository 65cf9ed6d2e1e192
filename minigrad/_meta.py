"""Meta tensors: a shape and a dtype, and no data (``device="meta"``).

PyTorch counterpart: the meta device (``c10::DeviceType::Meta``) and its meta kernels
(``torch/_meta_registrations.py``, the ``Meta`` dispatch key). A meta tensor lets code
build a model without memory (``with torch.device("meta"): nn.Linear(8192, 8192)``), ask
what shapes a forward gives, then give it real storage (``module.to_empty(device=...)``).

In minigrad a meta tensor is a ``Tensor`` whose ``_array`` is a :class:`MetaArray`: an
object that answers ``shape``, ``dtype``, ``ndim``, ``size``, ``strides`` and ``flags``
like a numpy array, but holds no data. Any read of its values (a numpy function, an
operator, a method such as ``reshape``) raises :class:`MetaComputation`, which
``_dispatch._kernel`` catches: it then runs the op on zero-filled stand-ins and keeps only
the shapes and dtypes of the results (:func:`run_on_meta`). So every op of the table works
on meta tensors, forward and backward, and the kernels need no meta version of their own;
the only cost is an ``except`` clause that normal tensors never reach. Writes into a meta
tensor (``uniform_``, ``copy_``, ``+=``) change nothing, as there is nothing to change.

Where minigrad differs: an op on meta tensors really computes on zeros, so it needs the
memory of its inputs and outputs for the time it runs (``zeros`` memory that the OS maps
lazily) and data-dependent ops (``nonzero``, boolean masks) give the shapes zeros give
instead of raising; a CPU tensor of more than one element among an op's tensor inputs is
refused as in PyTorch, but not among its other arguments (a mask, an index).
"""
import numpy as np

from . import _tensor_class

__all__ = ["MetaArray", "MetaComputation", "NO_DATA", "run_on_meta"]

NO_DATA = "Cannot copy out of meta tensor; no data!"     # PyTorch's NotImplementedError


class MetaComputation(NotImplementedError):
    """Raised when a meta tensor's values are read; ``_dispatch._kernel`` catches it and
    reruns the op on stand-ins. Anywhere else it is PyTorch's own error for reading a meta
    tensor's data."""

    def __init__(self, message=NO_DATA):
        super().__init__(message)


class _Flags:
    """What minigrad reads of numpy's ``flags``: a meta array counts as contiguous."""

    def __init__(self, ndim):
        self.c_contiguous = True
        self.f_contiguous = ndim <= 1
        self.writeable = True


class MetaArray:
    """The storage of a meta tensor: numpy's metadata of an array of ``shape`` and ``dtype``,
    with no values behind it."""

    __slots__ = ("shape", "dtype", "flags")
    base = None

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.flags = _Flags(len(self.shape))

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    @property
    def strides(self):
        """C-contiguous strides in bytes, as a fresh array of this shape would have."""
        strides, step = [], self.dtype.itemsize
        for n in reversed(self.shape):
            strides.append(step)
            step *= max(n, 1)
        return tuple(reversed(strides))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # Data-free operations: a copy, a view or a cast of nothing is a new nothing.
    def copy(self, order="C"):
        return MetaArray(self.shape, self.dtype)

    view = copy

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return MetaArray(self.shape, dtype)

    def __setitem__(self, key, value):
        pass

    def fill(self, value):
        pass

    def item(self, *args):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    __bool__ = __float__ = __int__ = __index__ = item

    def tolist(self):
        raise NotImplementedError(NO_DATA)

    def __repr__(self):
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    # Everything that reads values sends the op to run_on_meta.
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):       # numpy's protocol probes
            raise AttributeError(name)
        raise MetaComputation()

    def __getitem__(self, key):
        raise MetaComputation()

    def __array__(self, dtype=None, copy=None):
        raise MetaComputation()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out and all(isinstance(o, MetaArray) for o in out):     # written into a meta array
            return out[0] if len(out) == 1 else out
        raise MetaComputation()

    def __array_function__(self, func, types, args, kwargs):
        if func is np.copyto:
            if isinstance(args[0], MetaArray):
                return None             # nothing to write into
            raise MetaComputation()     # a meta source has nothing to copy out
        if func in _LIKE and isinstance(args[0], MetaArray):
            dtype = kwargs.get("dtype") or (args[1] if func is not np.full_like and len(args) > 1 else None)
            return MetaArray(kwargs.get("shape") or args[0].shape, dtype or args[0].dtype)
        raise MetaComputation()


_LIKE = frozenset({np.empty_like, np.zeros_like, np.ones_like, np.full_like})


def _in_place(self, other):
    return self                         # ``meta += x`` writes nothing


def _reads_values(self, *args):
    raise MetaComputation()


for _name in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift "
              "lt le gt ge eq ne neg pos abs invert").split():
    setattr(MetaArray, f"__{_name}__", _reads_values)
    setattr(MetaArray, f"__r{_name}__", _reads_values)
    setattr(MetaArray, f"__i{_name}__", _in_place)
MetaArray.__hash__ = None
del _name


def _stand_in(value):
    """A Tensor whose array is meta becomes one over zeros of the same shape and dtype."""
    if isinstance(value, _tensor_class.Tensor) and type(value._array) is MetaArray:
        stand_in = _tensor_class.Tensor._wrap(np.zeros(value._array.shape, value._array.dtype))
        stand_in._python_scalar = value._python_scalar
        return stand_in
    if isinstance(value, (tuple, list)):
        return type(value)(_stand_in(v) for v in value)
    return value


_running = [False]


def run_on_meta(op, tensors, attrs, kernel):
    """``kernel(op, tensors, attrs)`` for an op that read a meta input: run on zero-filled
    stand-ins, then every output becomes a meta tensor of the shape and dtype it got."""
    devices = [t.device for t in tensors if t._python_scalar is None and t._array.ndim > 0]
    for device in devices[1:]:          # a 0-dim CPU tensor may join, as in PyTorch
        if device != devices[0]:
            raise RuntimeError(f"Tensor on device {device} is not on the expected device {devices[0]}!")
    if _running[0]:
        raise NotImplementedError(f"minigrad cannot run {op.name} on meta tensors: its kernel "
                                  "reads data that no stand-in replaces")
    _running[0] = True
    try:
        with np.errstate(all="ignore"):
            outputs = kernel(op, _stand_in(tuple(tensors)),
                             {name: _stand_in(value) for name, value in attrs.items()})
    finally:
        _running[0] = False
    for out in outputs:
        out._array = MetaArray(out._array.shape, out._array.dtype)
    return outputs
