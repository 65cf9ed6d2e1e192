"""Data types: thin named wrappers around numpy dtypes.

PyTorch counterpart: ``torch.dtype`` (``torch.float32`` ...). minigrad keeps the
dtypes a learner meets (float32, float64, int64, int32), bool for masks, and float16
(``half``), the classic format for packing saved activations. The default floating
dtype is float32, as in PyTorch. Like PyTorch on the CPU, ops on float16 tensors
compute in float32 and round the result to float16 (``_dispatch.apply_op``).
"""
import numpy as np

__all__ = ["dtype", "bool_", "float16", "half", "float32", "float", "float64", "double", "int32",
           "int", "int64", "long", "get_default_dtype", "from_numpy_dtype", "to_numpy_dtype",
           "CPP_NAMES", "SCALAR_TYPE_NAMES"]


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

    def __reduce__(self):
        return (from_numpy_dtype, (self.np,))


float16 = dtype("float16", np.float16, True, "HalfTensor")
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

_BY_NUMPY = {d.np: d for d in (float16, float32, float64, int64, int32, bool_)}

# How PyTorch names each dtype in error messages: as a C++ scalar type (``'float'``),
# and as a ScalarType (``'Float'``).
CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int",
             "int32": "int", "bool": "bool"}
SCALAR_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
                     "int32": "Int", "bool": "Bool"}


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
    raise TypeError("minigrad supports float16, float32, float64, int64, int32 and bool data, "
                    f"not {np_dtype}")


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
