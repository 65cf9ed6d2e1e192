"""``save`` and ``load``: tensors, state dicts and nested containers to a file and back.

PyTorch counterpart: ``torch/serialization.py``. Like PyTorch, the object is pickled,
with tensors reduced to their data and ``requires_grad``: a tensor that was part of a
graph comes back as a leaf (``grad_fn`` None, ``requires_grad`` kept, as in PyTorch), and
``.grad`` is not saved. A tensor saved twice in one object comes back as one tensor.

**The file format is minigrad's own, not PyTorch's**: a short header line and one
pickle (PyTorch writes a zip archive). ``minigrad.load`` cannot read a ``torch.save``
file and ``torch.load`` cannot read ours. To move weights across, go through numpy
(``{k: v.numpy() for k, v in state.items()}``, then ``minigrad.tensor`` on each value).
Distinct tensors that share storage (a tensor and a view of it) are saved as separate
copies (PyTorch keeps the sharing).
"""
import collections
import os
import pickle

import numpy as np

from . import dtypes
from ._device import check_device as _check_device, device as _device
from ._meta import MetaArray as _MetaArray
from ._tensor import Tensor as _Tensor
from ._tensor_methods import Size as _Size

__all__ = ["save", "load"]

_MAGIC = b"minigrad-save 1\n"       # the header line of every file ``save`` writes


def _rebuild_tensor(cls, dtype_name, shape, data, requires_grad):
    array = np.frombuffer(data, dtype=np.dtype(dtype_name)).reshape(shape).copy()
    t = cls._wrap(array)
    t._requires_grad = bool(requires_grad)
    return t


def _rebuild_dtype(name):
    return getattr(dtypes, name)


def _rebuild_size(dims):
    return _Size(dims)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, _Tensor):
            array = obj._array
            return (_rebuild_tensor, (type(obj), array.dtype.str, array.shape,
                                      array.tobytes(order="C"), obj.requires_grad))
        if isinstance(obj, dtypes.dtype):
            return (_rebuild_dtype, (obj.name,))
        if isinstance(obj, _Size):
            return (_rebuild_size, (tuple(obj),))
        return NotImplemented


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """``torch.save(obj, f)``: write ``obj`` (a tensor, a state dict, or dicts, lists and
    tuples of tensors, numbers and strings) to ``f``, a path or a binary file object.
    The file is in minigrad's own format (see the module docstring)."""
    def write(stream):
        stream.write(_MAGIC)
        _Pickler(stream, protocol=max(pickle_protocol, 3)).dump(obj)     # 3: bytes pickle as bytes

    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as stream:
            write(stream)
    else:
        write(f)


# What ``weights_only=True`` lets a file rebuild: containers, numbers, strings, tensors
# (Parameter included), dtypes, devices and sizes, never arbitrary classes or functions.
_SAFE_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex, ("builtins", "slice"): slice,
    (__name__, "_rebuild_tensor"): _rebuild_tensor,
    (__name__, "_rebuild_dtype"): _rebuild_dtype,
    (__name__, "_rebuild_size"): _rebuild_size,
    (_device.__module__, "device"): _device,
}


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        found = _SAFE_GLOBALS.get((module, name))
        if found is not None:
            return found
        if module.startswith("minigrad"):
            cls = super().find_class(module, name)
            if isinstance(cls, type) and issubclass(cls, _Tensor):
                return cls
        raise pickle.UnpicklingError(
            f"Weights only load failed: the file needs {module}.{name}, which "
            "weights_only=True does not rebuild (it allows tensors, dtypes, devices, "
            "numbers, strings and containers). If you trust the file, load it with "
            "minigrad.load(f, weights_only=False).")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """``torch.load(f)``: read back what :func:`save` wrote, from a path or a binary
    file object. ``weights_only`` (default True, as in PyTorch 2.6 and later) refuses
    files that would rebuild anything but tensors, dtypes, devices, numbers, strings
    and containers; pass ``weights_only=False`` for a trusted file holding other
    objects. ``map_location`` may name the CPU or the meta device (every tensor loaded
    then has its shape and dtype and no data)."""
    to_meta = isinstance(map_location, (str, _device)) and _check_device(map_location).type == "meta"
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            loaded = _load(stream, weights_only)
    else:
        loaded = _load(f, weights_only)
    if to_meta:
        from .utils._pytree import tree_map_only_
        tree_map_only_(_Tensor, lambda t: setattr(t, "_array", _MetaArray(t._array.shape, t._array.dtype)),
                       loaded)
    return loaded


def _load(stream, weights_only):
    header = stream.read(len(_MAGIC))
    if header != _MAGIC:
        if header[:4] == b"PK\x03\x04":
            raise RuntimeError(
                "This file is a zip archive, as torch.save writes: minigrad.load reads only "
                "files written by minigrad.save (minigrad has its own format). Re-save the "
                "values as numpy arrays in PyTorch and build minigrad tensors from them.")
        raise RuntimeError("This is not a file written by minigrad.save (its header is missing).")
    unpickler = _WeightsOnlyUnpickler if weights_only is None or weights_only else pickle.Unpickler
    return unpickler(stream).load()
