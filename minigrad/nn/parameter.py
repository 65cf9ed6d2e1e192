"""``nn.Parameter``: a leaf Tensor that a Module registers as one of its parameters.

PyTorch counterpart: ``torch/nn/parameter.py``. Assigning a Parameter to a Module
attribute (``self.w = nn.Parameter(...)``) puts it in ``module._parameters``; that is
all that makes it special. It shares the data of the tensor it wraps.

``nn.Buffer`` is the same idea for buffers: assigning one to a Module attribute calls
``register_buffer`` (with the buffer's ``persistent`` flag).

``UninitializedParameter`` and ``UninitializedBuffer`` are the placeholders of the lazy
modules (``nn/modules/lazy.py``): no shape yet; ``materialize(shape)`` gives them storage
and turns them into a ``Parameter`` (a plain ``Tensor``). Until then, reading their shape
or running an op on them raises PyTorch's errors.
"""
import numpy as np

from .. import _creation
from .._tensor import Tensor as _Tensor, check_can_require_grad as _check_can_require_grad

__all__ = ["Parameter", "Buffer", "UninitializedTensorMixin", "UninitializedParameter",
           "UninitializedBuffer", "is_lazy"]


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


class UninitializedTensorMixin:
    """What an uninitialised parameter or buffer does: ``materialize(shape)``; its shape
    and its ops raise until then (PyTorch blocks them in ``__torch_function__``; minigrad
    replaces the ``Tensor`` methods below the class). Its ``cls_to_become`` is the class it
    takes once materialised."""

    # The Tensor methods PyTorch lets through (they do not read the missing values).
    _allowed_methods = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float",
                                  "double", "int", "long", "cuda", "cpu", "to", "get_device"})

    def materialize(self, shape, device=None, dtype=None):
        """Give this placeholder storage of ``shape`` (``torch.empty``: minigrad fills zeros)
        on ``device``, of ``dtype`` (its own by default); it becomes ``cls_to_become``."""
        self.data = _creation.empty(shape, device=device or self.device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
            "the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))


# Operators are reported as the method PyTorch names (``p + 1`` is ``add``).
_OPERATOR_NAMES = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub",
                   "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "div",
                   "__matmul__": "matmul", "__rmatmul__": "matmul", "__pow__": "pow", "__rpow__": "pow",
                   "__neg__": "neg", "__getitem__": "__getitem__", "__setitem__": "__setitem__"}


def _refused(name):
    def method(self, *args, **kwargs):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in <method '{_OPERATOR_NAMES.get(name, name)}' "
            "of 'torch._C.TensorBase' objects>. This error happens when you are using a `LazyModule` or "
            "explicitly manipulating `torch.nn.parameter.UninitializedParameter` objects. When using "
            "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling "
            "torch functions")
    method.__name__ = name
    return method


# The op surface (``_tensor_methods.py``) is refused; what autograd keeps on a tensor
# (``requires_grad``, hooks, ``detach``) stays usable, for the modules' own bookkeeping.
for _name, _value in list(vars(_Tensor).items()):
    if getattr(_value, "__module__", None) == "minigrad._tensor_methods" and callable(_value) \
            and _name not in UninitializedTensorMixin._allowed_methods \
            and (not _name.startswith("_") or _name in _OPERATOR_NAMES):
        setattr(UninitializedTensorMixin, _name, _refused(_name))
del _name, _value


def is_lazy(param):
    """Whether ``param`` is a placeholder not materialised yet."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """``nn.parameter.UninitializedParameter(requires_grad=True, device=None, dtype=None)``:
    a parameter whose shape a lazy module learns from its first input."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, _creation.empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, _Tensor):
    """``nn.parameter.UninitializedBuffer(requires_grad=False, device=None, dtype=None)``:
    the buffer counterpart (a lazy batch norm's running statistics)."""

    cls_to_become = _Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        buffer = cls._wrap(_creation.empty(0, device=device, dtype=dtype)._array)
        buffer.requires_grad = requires_grad
        return buffer

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass
