"""Data types: thin named wrappers around numpy dtypes.

PyTorch counterpart: ``torch.dtype`` (``torch.float32`` ...). minigrad keeps the
dtypes a learner meets (float32, float64, int64, int32), bool for masks, float16
(``half``), the classic format for packing saved activations, and bfloat16, the format
of mixed-precision training on CPUs (``torch.autocast``). numpy has no bfloat16: its
arrays use ``ml_dtypes.bfloat16``, the numpy dtype the JAX project maintains. The
default floating dtype is float32, as in PyTorch. Like PyTorch on the CPU, ops on
float16 and bfloat16 tensors compute in float32 and round the result
(``_dispatch._kernel``).

``finfo`` and ``iinfo`` (PyTorch: ``torch/csrc/TypeInfo.cpp``) give the limits of a
floating and an integer dtype.
"""
import builtins

import ml_dtypes
import numpy as np

__all__ = ["dtype", "bool_", "float16", "half", "bfloat16", "float32", "float", "float64", "double",
           "int32", "int", "int64", "long", "get_default_dtype", "from_numpy_dtype", "to_numpy_dtype",
           "is_floating", "finfo", "iinfo", "CPP_NAMES", "SCALAR_TYPE_NAMES"]


class dtype:
    """A minigrad dtype; ``np`` is the numpy dtype behind it."""

    __module__ = "minigrad"     # prints as <class 'minigrad.dtype'>

    __slots__ = ("name", "np", "is_floating_point", "tensor_type")

    def __init__(self, name, np_dtype, is_floating_point, tensor_type):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = is_floating_point
        self.tensor_type = tensor_type      # PyTorch's legacy type name, used in error texts

    def __repr__(self):
        return "minigrad." + self.name

    @property
    def itemsize(self):
        """Bytes per element, as ``torch.dtype.itemsize``."""
        return self.np.itemsize

    @property
    def is_signed(self):
        return self.name != "bool"

    is_complex = False

    def to_real(self):
        """``dtype.to_real()``: the real dtype of a complex one; a real dtype itself."""
        return self

    def __reduce__(self):
        return (from_numpy_dtype, (self.np,))


float16 = dtype("float16", np.float16, True, "HalfTensor")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, True, "BFloat16Tensor")
float32 = dtype("float32", np.float32, True, "FloatTensor")
float64 = dtype("float64", np.float64, True, "DoubleTensor")
int64 = dtype("int64", np.int64, False, "LongTensor")
int32 = dtype("int32", np.int32, False, "IntTensor")
bool_ = dtype("bool", np.bool_, False, "BoolTensor")
float = float32     # torch.float is float32
double = float64
long = int64
int = int32         # torch.int is int32
half = float16

_BY_NUMPY = {d.np: d for d in (float16, bfloat16, float32, float64, int64, int32, bool_)}

# How PyTorch names each dtype in error messages: as a C++ scalar type (``'float'``),
# and as a ScalarType (``'Float'``).
CPP_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
             "int64": "long int", "int32": "int", "bool": "bool"}
SCALAR_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                     "int64": "Long", "int32": "Int", "bool": "Bool"}


def from_numpy_dtype(np_dtype):
    """The minigrad dtype for a numpy dtype (integer types other than int32 map to int64,
    other floating types to float32)."""
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    if np_dtype.kind in "iu":
        return int64
    if np_dtype.kind == "f":
        return float32
    raise TypeError("minigrad supports float16, bfloat16, float32, float64, int64, int32 and bool "
                    f"data, not {np_dtype}")


def is_floating(np_dtype):
    """Whether a numpy dtype is a floating one: numpy's kinds call bfloat16 ``'V'``
    (an extension type), not ``'f'``."""
    return np_dtype.kind == "f" or np_dtype == bfloat16.np


def to_numpy_dtype(d):
    """Accept a minigrad dtype, a numpy dtype or None."""
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.np
    return from_numpy_dtype(d).np


def get_default_dtype():
    """``torch.get_default_dtype()``: the dtype Python floats become, float32 (minigrad has
    no ``set_default_dtype``)."""
    return float32


def _short(value):
    """A number as PyTorch's ``finfo``/``iinfo`` reprs print it (C++'s default stream
    format: six significant digits)."""
    return f"{value:g}"


class finfo:
    """``torch.finfo(dtype=None)``: the limits of a floating dtype (the default dtype when
    none is given): ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` (10 to the minus the decimal digits), ``dtype`` (its name)."""

    __module__ = "minigrad"

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else type
        if not isinstance(type, dtype) or not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = ml_dtypes.finfo(type.np)
        self.bits = info.bits
        self.eps, self.max, self.min = (builtins.float(v) for v in (info.eps, info.max, info.min))
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return (f"finfo(resolution={_short(self.resolution)}, min={_short(self.min)}, "
                f"max={_short(self.max)}, eps={_short(self.eps)}, "
                f"smallest_normal={_short(self.smallest_normal)}, tiny={_short(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: the limits of an integer dtype: ``bits``, ``max``, ``min``,
    ``dtype`` (its name)."""

    __module__ = "minigrad"

    def __init__(self, type):
        if not isinstance(type, dtype) or type.is_floating_point or type is bool_:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min = info.bits, builtins.int(info.max), builtins.int(info.min)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return (f"iinfo(min={_short(builtins.float(self.min))}, "
                f"max={_short(builtins.float(self.max))}, dtype={self.dtype})")
