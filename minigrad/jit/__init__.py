"""``torch.jit``: the parts of TorchScript that code calls while it runs eagerly.

PyTorch counterpart: ``torch/jit/__init__.py`` and ``torch/_jit_internal.py``. Models
written to be scriptable mark methods (``@torch.jit.unused``, ``@torch.jit.ignore``,
``@torch.jit.export``), branch on ``torch.jit.is_scripting()`` / ``is_tracing()``, annotate
types (``torch.jit.annotate``, ``Final``) and fork calls (``torch.jit.fork``/``wait``).
Run eagerly, as PyTorch runs them outside ``torch.jit.script``, these change nothing:
minigrad gives them that eager meaning.

minigrad has no TorchScript itself (no compiler to a graph language, no tracer, no
``.pt`` archives of code): ``script``, ``trace``, ``save`` and ``load`` raise an error
that says so, and what to do instead.
"""
import enum
import functools
import typing
import warnings
from collections import namedtuple as _namedtuple

from ..futures import Future, _completed

__all__ = ["Attribute", "Error", "Final", "FunctionModifiers", "Future", "RecursiveScriptModule",
           "ScriptFunction", "ScriptModule", "ScriptWarning",
           "TracerWarning", "annotate", "export", "fork", "ignore", "interface", "is_scripting",
           "is_tracing", "isinstance", "load", "optimized_execution", "save", "script",
           "script_if_tracing", "script_method", "trace", "trace_module", "unused", "wait", "freeze",
           "optimize_for_inference"]

Final = typing.Final
Attribute = _namedtuple("Attribute", ["value", "type"])


class Error(Exception):
    """``torch.jit.Error``: what a TorchScript program raises."""


class TracerWarning(Warning):
    """``torch.jit.TracerWarning``: scripts often silence it
    (``warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)``)."""


class ScriptWarning(Warning):
    """``torch.jit.ScriptWarning``."""


def is_scripting():
    """``torch.jit.is_scripting()``: True only inside code compiled by ``torch.jit.script``,
    so always False here (minigrad compiles nothing)."""
    return False


def is_tracing():
    """``torch.jit.is_tracing()``: True only while ``torch.jit.trace`` records, so always
    False here."""
    return False


class FunctionModifiers(str, enum.Enum):
    """What a decorator tells the TorchScript compiler about a function; PyTorch keeps it
    as ``fn._torchscript_modifier`` (and so does minigrad, where nothing reads it)."""
    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from a exported function / forward)"

    def __str__(self):
        return self.value


def _mark(fn, modifier):
    target = fn.fget if _builtin_isinstance(fn, property) else fn
    target._torchscript_modifier = modifier
    return fn


def unused(fn):
    """``@torch.jit.unused``: the compiler replaces the function by a raise; eagerly it
    runs as written."""
    return _mark(fn, FunctionModifiers.UNUSED)


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``: the compiler leaves the
    call to Python; eagerly the function runs as written."""
    if callable(drop):      # used bare: @torch.jit.ignore
        return _mark(drop, FunctionModifiers.IGNORE)
    drop = drop or kwargs.pop("drop_on_export", False)
    if drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      f"call on compilation. Use torch.jit.unused now. {kwargs}", FutureWarning,
                      stacklevel=2)
    return functools.partial(_mark, modifier=FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE)


def export(fn):
    """``@torch.jit.export``: compile this method even if ``forward`` does not call it;
    eagerly the method runs as written."""
    return _mark(fn, FunctionModifiers.EXPORT)


def interface(obj):
    """``@torch.jit.interface``: declares a TorchScript interface type; eagerly the class
    itself."""
    return obj


def script_if_tracing(fn):
    """``@torch.jit.script_if_tracing``: scripted only when first called under
    ``torch.jit.trace``; eagerly the function itself runs."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    wrapper.__original_fn = fn
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


_script_if_tracing = script_if_tracing


def _overload(func):
    """``torch.jit._overload``: declares one typed signature of a function whose last
    definition is the implementation; eagerly the declaration is just replaced."""
    return func


_overload_method = _overload


def annotate(the_type, the_value):
    """``torch.jit.annotate(type, value)``: tells the compiler a value's type; eagerly the
    value."""
    return the_value


_builtin_isinstance = isinstance


def isinstance(obj, target_type):
    """``torch.jit.isinstance(obj, list[int])``: an ``isinstance`` that also checks the
    element types of ``list``, ``tuple``, ``dict`` and ``Optional``/``Union`` targets."""
    origin = typing.get_origin(target_type)
    if origin is None:
        if target_type in (list, tuple, dict, typing.List, typing.Tuple, typing.Dict):
            name = getattr(target_type, "__name__", None) or getattr(target_type, "_name", "")
            raise RuntimeError(f"Attempted to use {name} without a contained type. Please add a "
                               f"contained type, e.g. {name}[int]")
        if target_type is typing.Any:
            return True
        return _builtin_isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union or type(target_type).__name__ == "UnionType":
        return any(isinstance(obj, arg) for arg in args)
    if not _builtin_isinstance(obj, origin):
        return False
    if origin is list:
        return all(isinstance(item, args[0]) for item in obj)
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return all(isinstance(item, args[0]) for item in obj)
        return len(obj) == len(args) and all(isinstance(i, a) for i, a in zip(obj, args))
    return True


def fork(func, *args, **kwargs):
    """``torch.jit.fork(func, *args)``: runs ``func`` asynchronously in TorchScript; eagerly
    (in PyTorch as here) it runs at once and returns a completed ``Future``."""
    return _completed(func(*args, **kwargs))


def wait(future):
    """``torch.jit.wait(future)``: the value of a ``fork``'s future."""
    return future.wait()


class optimized_execution:
    """``with torch.jit.optimized_execution(False):``: switches the TorchScript executor's
    optimisations; nothing to switch here."""

    def __init__(self, should_optimize):
        self.should_optimize = should_optimize

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _no_torchscript(api, instead):
    return NotImplementedError(
        f"minigrad has no TorchScript, so {api} cannot work: minigrad runs every model eagerly, "
        f"in Python, and has no compiler, tracer or TorchScript archive. {instead} Code that must "
        "also run under PyTorch can keep its TorchScript-only branches behind "
        "`if not torch.jit.is_scripting():`.")


_RUN_EAGERLY = "Call the module or function itself: it computes the same thing eagerly."


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: raises (no TorchScript compiler here)."""
    raise _no_torchscript("torch.jit.script", _RUN_EAGERLY)


def trace(func, example_inputs=None, *args, **kwargs):
    """``torch.jit.trace``: raises (no tracer here)."""
    raise _no_torchscript("torch.jit.trace", _RUN_EAGERLY)


def trace_module(mod, inputs, *args, **kwargs):
    """``torch.jit.trace_module``: raises (no tracer here)."""
    raise _no_torchscript("torch.jit.trace_module", _RUN_EAGERLY)


def script_method(fn):
    """``@torch.jit.script_method`` (the legacy ``ScriptModule`` API): raises."""
    raise _no_torchscript("torch.jit.script_method", "Write the class as an nn.Module.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """``torch.jit.freeze``: raises (it needs a scripted module)."""
    raise _no_torchscript("torch.jit.freeze", "Use the eager module as it is.")


def optimize_for_inference(mod, other_methods=None):
    """``torch.jit.optimize_for_inference``: raises (it needs a scripted module)."""
    raise _no_torchscript("torch.jit.optimize_for_inference",
                          "Use the eager module under torch.inference_mode().")


def save(m, f, _extra_files=None):
    """``torch.jit.save``: raises (no TorchScript archives)."""
    raise _no_torchscript("torch.jit.save", "Save the weights with torch.save(model.state_dict(), f).")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """``torch.jit.load``: raises (no TorchScript archives)."""
    raise _no_torchscript("torch.jit.load", "Build the model in Python and load its state_dict "
                                            "saved with torch.save.")


class ScriptModule:
    """``torch.jit.ScriptModule``: the class of scripted modules. Nothing is ever one here
    (``isinstance(m, torch.jit.ScriptModule)`` is False); making one raises."""

    def __init__(self, *args, **kwargs):
        raise _no_torchscript("torch.jit.ScriptModule", "Subclass nn.Module instead.")


class ScriptFunction:
    """``torch.jit.ScriptFunction``: the class of scripted functions; nothing is ever one
    here."""

    def __init__(self, *args, **kwargs):
        raise _no_torchscript("torch.jit.ScriptFunction", _RUN_EAGERLY)


RecursiveScriptModule = ScriptModule
