"""Offloading saved activations: two ``saved_tensors_hooks`` pairs that move what a
forward pass saves out of the Python heap until backward unpacks it.

PyTorch counterpart: ``torch.autograd.graph.save_on_cpu``, which moves saved tensors from
the GPU to (pinned) CPU memory. minigrad runs on the CPU only, so its ``save_on_cpu``
keeps values as they are; these two show the same idea with memory that a CPU engine
can actually free: compressed bytes, or files on disk.
"""
import itertools
import os
import tempfile
import zlib

import numpy as np

from .. import _tensor_class
from .saved_variable import saved_tensors_hooks as _saved_tensors_hooks

__all__ = ["save_compressed", "save_on_disk"]


class save_compressed(_saved_tensors_hooks):
    """Offload saved activations as zlib-compressed bytes (minigrad's stand-in for
    ``save_on_cpu`` on a CPU engine): memory held between forward and backward shrinks
    by the compression ratio, at the cost of compressing and decompressing."""

    def __init__(self, level=1):
        def pack(t):
            data = np.ascontiguousarray(t._array)
            return zlib.compress(data.tobytes(), level), data.dtype, data.shape

        def unpack(packed):
            raw, dtype, shape = packed
            return _tensor_class.Tensor._wrap(np.frombuffer(zlib.decompress(raw),
                                                            dtype=dtype).reshape(shape).copy())

        super().__init__(pack, unpack)


class save_on_disk(_saved_tensors_hooks):
    """Offload saved activations to ``.npy`` files in a temporary folder (minigrad's
    stand-in for ``save_on_cpu``): memory between forward and backward holds only file
    names. Files are removed when unpacked values are no longer referenced."""

    def __init__(self, directory=None):
        self.directory = directory or tempfile.mkdtemp(prefix="minigrad-saved-")
        counter = itertools.count()

        class _File:
            def __init__(self, path):
                self.path = path

            def __del__(self):
                try:
                    os.remove(self.path)
                except OSError:
                    pass

        def pack(t):
            path = os.path.join(self.directory, f"saved-{next(counter)}.npy")
            np.save(path, t._array)
            return _File(path)

        def unpack(f):
            return _tensor_class.Tensor._wrap(np.load(f.path))

        super().__init__(pack, unpack)
