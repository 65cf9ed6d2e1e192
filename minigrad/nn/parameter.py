"""``nn.Parameter``: a leaf Tensor that a Module registers as one of its parameters.

PyTorch counterpart: ``torch/nn/parameter.py``. Assigning a Parameter to a Module
attribute (``self.w = nn.Parameter(...)``) puts it in ``module._parameters``; that is
all that makes it special. It shares the data of the tensor it wraps.

``nn.Buffer`` is the same idea for buffers: assigning one to a Module attribute calls
``register_buffer`` (with the buffer's ``persistent`` flag).
"""
import numpy as np

from .._tensor import Tensor as _Tensor, check_can_require_grad as _check_can_require_grad

__all__ = ["Parameter", "Buffer"]


class Parameter(_Tensor):
    """``torch.nn.Parameter(data=None, requires_grad=True)``."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = np.empty(0, dtype=np.float32)
        elif isinstance(data, _Tensor):
            data = data._array
        else:
            data = np.asarray(data)
        if requires_grad:
            _check_can_require_grad(data)
        p = cls._wrap(data)
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad=True):
        pass        # everything happened in __new__ (Tensor.__init__ would copy the data)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (Parameter, (_Tensor._wrap(self._array.copy()), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = Parameter(_Tensor._wrap(self._array.copy()), self.requires_grad)
        memo[id(self)] = p
        return p


class _BufferMeta(type):
    # ``isinstance(t, Buffer)`` is true for the plain Tensors that ``Buffer(...)`` marks.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, _Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """``torch.nn.Buffer(data=None, *, persistent=True)``: not a Tensor subclass but a
    marker, as in PyTorch: it returns a detached plain Tensor over ``data``'s storage
    (keeping ``requires_grad``) with ``persistent`` and ``_is_buffer`` attributes."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _Tensor._wrap(np.empty(0, dtype=np.float32))
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
