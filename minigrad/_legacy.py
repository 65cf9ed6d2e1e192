"""PyTorch's legacy tensor types: ``FloatTensor``, ``DoubleTensor``, ``LongTensor``,
``BoolTensor``, ``HalfTensor`` and the ``Tensor(...)`` constructor.

PyTorch counterpart: ``torch/csrc/tensor/python_tensor.cpp`` (the ``tensortype``
metaclass) and ``torch/csrc/utils/tensor_new.cpp`` (``legacy_tensor_ctor``). Such a
"type" is not a subclass of ``Tensor``: calling it makes an ordinary ``Tensor`` of its
dtype, and ``isinstance(t, FloatTensor)`` checks the dtype.

``FloatTensor(2, 3)`` gives PyTorch *uninitialised* memory; minigrad fills it with zeros.
"""
import numpy as np

from . import dtypes
from ._device import check_device


def new_legacy(dtype, args, device=None, alias_any_dtype=False):
    """A tensor of ``dtype`` from ``()``, sizes (ints or a ``Size``), data (a sequence or
    an array) or a tensor (aliased: same data, version counter and graph)."""
    from ._creation import tensor
    from ._tensor import Tensor
    from ._tensor_methods import Size
    check_device(device)
    if not args:
        return Tensor._wrap(np.zeros(0, dtype=dtype.np))
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if not alias_any_dtype and first.dtype is not dtype:
            raise TypeError(f"expected {dtype.tensor_type[:-len('Tensor')]} "
                            f"(got {first.dtype.tensor_type[:-len('Tensor')]})")
        alias = Tensor._wrap(first._array, first._version_counter)
        alias._requires_grad = first.requires_grad
        alias.grad_fn, alias._output_nr = first.grad_fn, first._output_nr
        return alias
    if len(args) == 1 and isinstance(first, Size):
        args = tuple(first)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        for a in args:
            if a < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {a}: {list(args)}")
        return Tensor._wrap(np.zeros(tuple(int(a) for a in args), dtype=dtype.np))
    if len(args) > 1:
        bad = next(a for a in args if not isinstance(a, (int, np.integer)))
        raise TypeError(f"new(): argument 'size' must be a tuple of ints, but got "
                        f"{type(bad).__name__} at position {args.index(bad) + 1}")
    if isinstance(first, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(first, (list, tuple, np.ndarray)):
        kind = type(first)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"new(): data must be a sequence (got {name})")
    return tensor(first, dtype=dtype)


class tensortype(type):
    """The metaclass of the legacy types (``type(minigrad.FloatTensor)``)."""

    def __instancecheck__(cls, obj):
        from ._tensor import Tensor
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None):
        return new_legacy(cls.dtype, args, device)

    def __repr__(cls):
        return f"<class 'minigrad.{cls.__name__}'>"


def _legacy_type(dtype):
    return tensortype(dtype.tensor_type, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False,
                                              "__module__": "minigrad"})


FloatTensor = _legacy_type(dtypes.float32)
DoubleTensor = _legacy_type(dtypes.float64)
LongTensor = _legacy_type(dtypes.int64)
BoolTensor = _legacy_type(dtypes.bool_)
HalfTensor = _legacy_type(dtypes.float16)
BFloat16Tensor = _legacy_type(dtypes.bfloat16)

LEGACY_TYPES = {t.__name__: t for t in (FloatTensor, DoubleTensor, LongTensor, BoolTensor, HalfTensor,
                                        BFloat16Tensor)}


def dtype_of_type_argument(value):
    """What ``Tensor.type(value)`` converts to: a legacy type, its name as a string
    (``"torch.FloatTensor"``), or a dtype."""
    if isinstance(value, tensortype):
        return value.dtype
    if isinstance(value, str):
        module, _, name = value.rpartition(".")
        if module in ("torch.cuda", "minigrad.cuda"):
            check_device("cuda")
        if module in ("torch", "minigrad") and name in LEGACY_TYPES:
            return LEGACY_TYPES[name].dtype
        raise ValueError(f"invalid type: '{value}'")
    return value
