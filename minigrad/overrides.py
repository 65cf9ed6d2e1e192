"""``TorchFunctionMode``: see (and replace) the public calls made inside a block.

PyTorch counterpart: ``torch/overrides.py``. Inside ``with Mode():`` each call of a public
function (``torch.add``, ``torch.nn.functional.linear``, ``torch.autograd.backward``) and
of a ``Tensor`` method or operator calls ``mode.__torch_function__(func, types, args,
kwargs)`` instead; ``func(*args, **kwargs)`` runs the call (or hands it to the next mode
down). An operator is reported as PyTorch reports it: ``a + b`` and ``2 + a`` as
``Tensor.add``, ``a * b`` as ``Tensor.mul``, ``a[0]`` as ``Tensor.__getitem__``. While a
mode's ``__torch_function__`` runs it is off the stack, so the calls the public function
makes inside are not seen again (PyTorch's C++ kernels make none either).

Where minigrad differs from PyTorch: PyTorch checks for a mode inside each public function;
minigrad instead swaps in checking wrappers when the first mode is entered and puts the
originals back when the last one exits, so nothing is checked while no mode is active. So a
reference taken before the mode was entered (``from torch import add``) bypasses it;
property reads (``t.shape``, ``t.grad``), ``Tensor``'s constructor and ``Module`` calls
(``model(x)``: the ``F.*`` functions it calls are seen) are not seen; ``types`` is always
``()``; the mode stack is one list for the process, not one per thread.
"""
import functools
import types as _types

__all__ = ["TorchFunctionMode", "resolve_name"]

_mode_stack = []
_originals = []         # (owner, name, original) for each wrapper in place

# Functions of the ``torch`` namespace that are no tensor operation.
_NOT_TENSOR_FUNCTIONS = frozenset({
    "get_default_device", "set_default_device", "get_default_dtype", "get_rng_state", "set_rng_state",
    "manual_seed", "is_grad_enabled",
    "is_inference_mode_enabled", "load", "save", "set_printoptions", "is_exact_float32_math",
    "set_exact_float32_math"})
# Tensor operators PyTorch reports as the named method (``a + b`` is ``Tensor.add``), where
# minigrad's Tensor has that method.
_OPERATOR_METHODS = {"__add__": "add", "__radd__": "add", "__mul__": "mul", "__rmul__": "mul",
                     "__sub__": "sub", "__truediv__": "div", "__matmul__": "matmul", "__neg__": "neg",
                     "__pow__": "pow", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
                     "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_"}
# Dunders Python itself calls while a mode works (numpy interop, iteration, formatting).
_UNWRAPPED_DUNDERS = frozenset({"__init__", "__array__", "__format__", "__iter__", "__index__", "__bool__"})


class TorchFunctionMode:
    """Subclass it and define ``__torch_function__(self, func, types, args=(), kwargs=None)``;
    ``with MyMode():`` makes it see every public call made inside the block."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        if not _mode_stack and not _originals:
            _install_wrappers()
        _mode_stack.append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self in _mode_stack:
            del _mode_stack[len(_mode_stack) - 1 - _mode_stack[::-1].index(self)]
        if not _mode_stack:
            _remove_wrappers()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def _get_current_function_mode_stack():
    """The active modes, outermost first (a copy)."""
    return list(_mode_stack)


def resolve_name(f):
    """``torch.overrides.resolve_name``: the public name of a function of the namespace,
    of ``nn.functional`` or of ``Tensor`` (``"torch.Tensor.sum"`` in PyTorch, minigrad's
    read ``"minigrad.Tensor.sum"``), whether or not a mode is active, or None for one
    that has none (``autograd.backward``, as in PyTorch)."""
    if hasattr(f, "_public_name"):          # the wrapper a mode was given
        return f._public_name
    import minigrad
    from minigrad.nn import functional
    for owner in (minigrad, functional, minigrad.Tensor):
        names = vars(owner)
        name = getattr(f, "__name__", None)
        if names.get(name) is not f:        # an alias (Tensor.mm is matmul)
            name = next((n for n, value in names.items() if value is f), None)
        if name is not None:
            return f"{_owner_name(owner)}.{name}"
    return None


def _owner_name(owner):
    return owner.__name__ if isinstance(owner, _types.ModuleType) else f"minigrad.{owner.__name__}"


def _checking(original, reported_as=None):
    """``original`` as a mode sees it: while a mode is active, a call goes to the innermost
    mode's ``__torch_function__`` (with that mode off the stack), as ``reported_as()``."""
    @functools.wraps(original)
    def public(*args, **kwargs):
        if not _mode_stack:
            return original(*args, **kwargs)
        mode = _mode_stack.pop()
        try:
            func = public if reported_as is None else reported_as()
            return mode.__torch_function__(func, (), args, kwargs)
        finally:
            _mode_stack.append(mode)
    return public


def _wrap(owner, name, reported_as=None):
    original = vars(owner)[name]
    _originals.append((owner, name, original))
    public = _checking(original, reported_as)
    public._public_name = resolve_name(original)
    setattr(owner, name, public)


def _install_wrappers():
    import minigrad
    from minigrad import autograd
    from minigrad.nn import functional

    for name in minigrad.__all__:
        if isinstance(getattr(minigrad, name), _types.FunctionType) and name not in _NOT_TENSOR_FUNCTIONS:
            _wrap(minigrad, name)
    for name in functional.__all__:
        if isinstance(getattr(functional, name), _types.FunctionType):
            _wrap(functional, name)
    for name in ("backward", "grad"):
        _wrap(autograd, name)
    tensor = minigrad.Tensor
    for name, value in list(vars(tensor).items()):
        if not isinstance(value, _types.FunctionType) or name in _UNWRAPPED_DUNDERS:
            continue
        if hasattr(tensor, _OPERATOR_METHODS.get(name, " ")):
            _wrap(tensor, name, functools.partial(getattr, tensor, _OPERATOR_METHODS[name]))
        elif not name.startswith("_") or name.endswith("__"):
            _wrap(tensor, name)


def _remove_wrappers():
    while _originals:
        owner, name, original = _originals.pop()
        setattr(owner, name, original)
