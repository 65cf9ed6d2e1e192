"""``TorchDispatchMode``: see (and replace) every op minigrad runs, below autograd.

PyTorch counterpart: ``torch/utils/_python_dispatch.py``. Inside ``with Mode():`` every op
of the table, forward and backward (a backward formula is written with minigrad ops),
calls ``mode.__torch_dispatch__(func, types, args, kwargs)`` instead of its numpy kernel.
``func`` is named as PyTorch names the overload (``str(func) == "aten.mm.default"``);
calling ``func(*args, **kwargs)`` hands the op to the next mode down, or to the kernel
when none is left. While a mode's ``__torch_dispatch__`` runs it is off the stack, so the
ops it runs itself go to the modes below it; modes nest, the innermost sees an op first.
What the mode returns is the op's result: autograd (above the mode) attaches the node to it.

Where minigrad differs from PyTorch:

- ``args`` are the op's tensor inputs (a Python number as itself) and ``kwargs`` its other
  arguments by name (PyTorch passes most of them positionally: ``sum.dim_IntList(x, [1])``
  is ``func(x, dim=(1,), keepdim=False)`` here).
- The mode stack is one list for the process, not one per thread.
- An op with a ``.Scalar`` overload in PyTorch (``x == 2`` is ``eq.Scalar``) shows the
  ``.Tensor`` one; ops that PyTorch runs and minigrad has no counterpart for (``detach``
  when a node saves an output or ``.grad`` is stored, ``ones_like`` for the root gradient)
  are not seen, and some backward formulas are written with other ops than PyTorch's
  fused kernels (convolution's backward is ``im2col``/``col2im`` and ``mm``).
"""
import numpy as np

from .. import _tensor_class

__all__ = ["TorchDispatchMode"]

# The active modes, innermost last. ``_dispatch.apply_op`` tests it once per op, and that
# test is all a mode costs while none is active.
_mode_stack = []


class TorchDispatchMode:
    """Subclass it and define ``__torch_dispatch__(self, func, types, args=(), kwargs=None)``;
    ``with MyMode():`` makes it see every op run inside the block."""

    def __init__(self, _dispatch_key=None):
        pass

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _mode_stack.append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if _mode_stack and _mode_stack[-1] is self:
            _mode_stack.pop()
        elif self in _mode_stack:
            _mode_stack.remove(self)

    @classmethod
    def push(cls, *args, **kwargs):
        """Make a mode and return it, to be entered later (``with Mode.push(): ...``)."""
        return cls(*args, **kwargs)


def _get_current_dispatch_mode():
    """The innermost active mode, or None."""
    return _mode_stack[-1] if _mode_stack else None


def _get_current_dispatch_mode_stack():
    """The active modes, outermost first (a copy)."""
    return list(_mode_stack)


class OpOverloadPacket:
    """All overloads of one aten op (``aten.mul``); one object per name, so packets compare
    and hash as PyTorch's do (``func.overloadpacket`` as a dict key)."""
    _packets = {}

    def __new__(cls, name):
        packet = cls._packets.get(name)
        if packet is None:
            packet = cls._packets[name] = super().__new__(cls)
            packet._name = name
            packet.__name__ = name
        return packet

    def __str__(self):
        return f"aten.{self._name}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self._name}')>"


class OpOverload:
    """One overload of an aten op as a mode sees it (PyTorch's ``torch._ops.OpOverload``):
    ``str(func) == "aten.mul.Tensor"``, ``func.overloadpacket``, ``func.name()``; calling it
    re-dispatches to the next mode down, or runs the op's kernel."""
    _overloads = {}

    def __init__(self, op, kernel):
        self._op = op
        self._kernel = kernel
        packet, self._overloadname = op.aten.split(".")
        self.overloadpacket = OpOverloadPacket(packet)
        self.__name__ = op.aten
        self.__module__ = "minigrad._ops.aten"      # PyTorch's read torch._ops.aten

    @classmethod
    def of(cls, op, kernel):
        func = cls._overloads.get(op)
        if func is None:
            func = cls._overloads[op] = cls(op, kernel)
        return func

    def name(self):
        """The schema name: ``aten::mul.Tensor``, ``aten::mm`` for a default overload."""
        packet = self.overloadpacket.__name__
        return f"aten::{packet}" + ("" if self._overloadname == "default" else f".{self._overloadname}")

    def __str__(self):
        return f"aten.{self._op.aten}"

    def __repr__(self):
        return f"<OpOverload(op='aten.{self.overloadpacket.__name__}', overload='{self._overloadname}')>"

    def __call__(self, *args, **kwargs):
        if _mode_stack:
            return _call_innermost_mode(self, args, kwargs)
        tensor_class = _tensor_class.Tensor
        tensors = tuple(a if isinstance(a, tensor_class) else _wrapped_number(a) for a in args)
        outputs = self._kernel(self._op, tensors, dict(kwargs))
        return outputs if self._op.multi_output else outputs[0]


def _wrapped_number(value):
    """A Python number as the op kernels take it (a 0-dim "wrapped number")."""
    t = _tensor_class.Tensor._wrap(np.asarray(value))
    t._python_scalar = value
    return t


def _call_innermost_mode(func, args, kwargs):
    """Run the innermost mode's ``__torch_dispatch__`` with that mode off the stack."""
    mode = _mode_stack.pop()
    try:
        tensor_class = _tensor_class.Tensor
        types = tuple(dict.fromkeys(type(a) for a in args if isinstance(a, tensor_class)))
        return mode.__torch_dispatch__(func, types, args, kwargs)
    finally:
        _mode_stack.append(mode)


def dispatch(op, tensors, attrs, kernel):
    """What ``_dispatch.apply_op`` calls instead of ``kernel`` while a mode is active: the
    op's outputs, as a tuple, from the innermost mode."""
    args = tuple(t if t._python_scalar is None else t._python_scalar for t in tensors)
    result = _call_innermost_mode(OpOverload.of(op, kernel), args, dict(attrs))
    if op.multi_output:
        return tuple(result)
    if not isinstance(result, _tensor_class.Tensor):
        raise RuntimeError(f"{type(_mode_stack[-1]).__name__}.__torch_dispatch__ returned "
                        f"{type(result).__name__} for aten.{op.aten}; it must return a Tensor "
                        "(what func(*args, **kwargs) returns, or a replacement)")
    return (result,)
