"""PyTorch objects to minigrad's: what the OpInfo sweep hands minigrad instead of a sample.

Only minigrad's public API is used (``minigrad.<name>``, ``minigrad.Tensor.<name>``,
``minigrad.nn...``, ``minigrad.linalg``, ...), so the sweep keeps working while the op
table behind it changes.

- :class:`ToMinigrad` converts a sample's values: tensors (copied through numpy, with their
  dtype and ``requires_grad``), nested lists, tuples and dicts, ``torch.dtype``,
  ``torch.device``, ``torch.Size``, ``torch.memory_format``, ``torch.layout``,
  ``torch.Generator``; Python values pass unchanged. It keeps a memo, so a tensor that a
  sample passes twice is one minigrad tensor too. What it cannot convert raises
  :class:`CannotConvert` naming it.
- :func:`counterpart` finds minigrad's version of a PyTorch callable: a public function by
  the path PyTorch exposes it under (``torch.nn.functional.conv2d`` ->
  ``minigrad.nn.functional.conv2d``), a ``Tensor`` method by name, ``torch.ops.aten``
  overloads by name, a ``functools.partial`` part by part, and a helper function defined in
  ``torch.testing`` (the lambdas many OpInfo entries call) as a copy of that function whose
  global names and closure cells are translated the same way. What minigrad lacks becomes a
  callable that raises :class:`Missing` when called, so the entry fails with
  ``missing: minigrad.acos`` rather than the harness failing.
"""
import builtins
import dataclasses
import functools
import importlib
import types

import numpy as np

import minigrad
import minigrad.nn
import minigrad.nn.functional

__all__ = ["CannotConvert", "Missing", "ToMinigrad", "counterpart", "resolve", "public_path", "set_target"]

# The framework PyTorch's samples are converted to and run on: minigrad, or PyTorch itself
# for the sweep's self-check (``opinfo_sweep.py --self-check``), where every entry must pass.
TARGET = minigrad


def set_target(module):
    """Convert to and look names up in ``module`` (``minigrad``, or ``torch``) from now on."""
    global TARGET
    TARGET = module


class CannotConvert(Exception):
    """A sample holds something minigrad has no counterpart for (``cannot convert ...``)."""


class Missing(Exception):
    """minigrad lacks the public name in ``args[0]`` (``minigrad.linalg.det``)."""


# PyTorch namespaces whose public callables have a minigrad counterpart at the same path,
# most specific first (``torch.nn.functional.conv2d is torch.conv2d``: the F name wins).
NAMESPACES = ("torch.nn.functional", "torch.linalg", "torch.special", "torch.fft", "torch.masked",
              "torch.signal.windows", "torch.nn.init", "torch.autograd", "torch.nn", "torch")


def resolve(path):
    """The object at a dotted ``minigrad...`` path, importing submodules on the way, or
    raise :class:`Missing` naming the first part that is not there."""
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[:i + 1]))
            except ImportError:
                raise Missing(".".join(parts[:i + 1])) from None
    return obj


def _missing(path):
    def missing(*args, **kwargs):
        raise Missing(path)
    missing.__qualname__ = missing.__name__ = f"missing<{path}>"
    return missing


@functools.lru_cache(maxsize=None)
def _public_index():
    """{id(obj): "torch.path"} for every callable of the PyTorch namespaces and of
    ``torch.Tensor``; the first namespace that holds an object names it."""
    import torch
    index, keep = {}, []
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        for name in dir(module):
            if name.startswith("__"):
                continue
            obj = getattr(module, name, None)
            if callable(obj) and id(obj) not in index:
                index[id(obj)] = f"{module_name}.{name}"
                keep.append(obj)
    for name in dir(torch.Tensor):
        obj = getattr(torch.Tensor, name, None)
        if callable(obj) and id(obj) not in index:
            index[id(obj)] = f"torch.Tensor.{name}"
            keep.append(obj)
    return index, keep     # keep: the ids stay valid while the index lives


def public_path(obj):
    """The public PyTorch path of a callable (``"torch.Tensor.add_"``), or None."""
    return _public_index()[0].get(id(obj))


def minigrad_path(torch_path):
    """``"torch.nn.functional.relu"`` -> ``"minigrad.nn.functional.relu"`` (the target's)."""
    return TARGET.__name__ + torch_path[len("torch"):]


def _lookup(torch_path):
    """minigrad's object for a PyTorch path, or a callable raising :class:`Missing`
    (also when minigrad has a module by that name where PyTorch has a function)."""
    path = minigrad_path(torch_path)
    try:
        found = resolve(path)
    except Missing:
        return _missing(path)
    if isinstance(found, types.ModuleType) and not isinstance(resolve_torch(torch_path), types.ModuleType):
        return _missing(f"{path} ({path} is a module, not the function)")
    return found


def _module_counterpart(module):
    if module.__name__ == "torch" or module.__name__.startswith("torch."):
        try:
            return resolve(minigrad_path(module.__name__))
        except Missing as missing:
            return _MissingModule(missing.args[0])
    return module


class _Unconvertible:
    """Stands for a global of a ``torch.testing`` function that has no minigrad
    counterpart: using it raises what converting it raised."""

    def __init__(self, exc):
        self._exc = exc

    def __getattr__(self, name):
        raise self._exc

    def __call__(self, *args, **kwargs):
        raise self._exc


class _MissingModule(types.ModuleType):
    """Stands for a PyTorch module minigrad lacks: any attribute raises :class:`Missing`."""

    def __getattr__(self, name):
        raise Missing(self.__name__)


def _seeded(op, *args, **kwargs):
    """``torch.testing._utils.wrapper_set_seed`` on minigrad: the op after ``manual_seed(42)``,
    the generator's state put back afterwards."""
    state = TARGET.get_rng_state()
    TARGET.manual_seed(42)
    try:
        return op(*args, **kwargs)
    finally:
        TARGET.set_rng_state(state)


# torch.testing helpers that reach PyTorch internals: minigrad gets its own version.
_HELPERS = {("torch.testing._utils", "wrapper_set_seed"): _seeded}


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _rebind(fn, convert):
    """A copy of a ``torch.testing`` function whose globals and closure are minigrad's."""
    def converted(value):
        try:
            return convert(value)
        except (CannotConvert, Missing) as exc:
            return _Unconvertible(exc)      # fails only if the function uses it

    globals_ = {"__builtins__": fn.__globals__.get("__builtins__", builtins), "__name__": fn.__module__}
    for name in _code_names(fn.__code__):      # attribute names too: convert what is there
        if name in fn.__globals__:
            globals_[name] = converted(fn.__globals__[name])
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(types.CellType(converted(cell.cell_contents)))
        except ValueError:          # an empty cell
            cells.append(types.CellType())
    defaults = tuple(converted(d) for d in fn.__defaults__) if fn.__defaults__ else None
    copy = types.FunctionType(fn.__code__, globals_, fn.__name__, defaults, tuple(cells) or None)
    if fn.__kwdefaults__:
        copy.__kwdefaults__ = {key: converted(value) for key, value in fn.__kwdefaults__.items()}
    copy.__qualname__ = fn.__qualname__
    return copy


def counterpart(fn, convert=None, name=None):
    """minigrad's version of the PyTorch callable ``fn``. ``name``: the path the OpInfo entry
    gives it (``"nn.functional.conv2d"``), tried first."""
    import torch
    convert = convert or ToMinigrad()
    if name is not None:
        try:
            same = resolve_torch("torch." + name) is fn
        except (AttributeError, ImportError):
            same = False
        if same:
            return _lookup("torch." + name)
    if isinstance(fn, functools.partial):
        return functools.partial(counterpart(fn.func, convert), *convert(fn.args), **convert(fn.keywords))
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        overload = "" if isinstance(fn, torch._ops.OpOverloadPacket) else f".{fn._overloadname}"
        return _lookup(f"torch.ops.aten.{fn.__name__.split('.')[0]}{overload}")
    if isinstance(fn, type):
        path = public_path(fn)
        if path is None:
            raise CannotConvert(f"cannot convert the class {fn.__module__}.{fn.__qualname__}")
        return _lookup(path)
    module = getattr(fn, "__module__", None) or ""
    helper = _HELPERS.get((module, getattr(fn, "__name__", None)))
    if helper is not None:
        return helper
    if isinstance(fn, types.FunctionType) and module.startswith("torch.testing"):
        return _rebind(fn, convert)
    path = public_path(fn)
    if path is not None:
        return _lookup(path)
    if not (module == "torch" or module.startswith("torch.")) and callable(fn):
        return fn       # operator.add, a Python builtin, numpy: the same on both sides
    raise CannotConvert(f"cannot convert the callable {module}.{getattr(fn, '__qualname__', fn)!r}")


def resolve_torch(path):
    """The object at a dotted ``torch...`` path (AttributeError when absent)."""
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


class ToMinigrad:
    """Converts PyTorch values to minigrad's; one instance per sample (its memo keeps the
    identity of tensors a sample passes more than once, and ``tensors`` maps each converted
    PyTorch tensor's id to its minigrad tensor)."""

    def __init__(self):
        self.memo = {}

    def tensor_for(self, torch_tensor):
        """The minigrad tensor this converter made for ``torch_tensor``."""
        return self.memo[id(torch_tensor)][1]

    def __call__(self, obj):
        import torch
        if obj is None or isinstance(obj, (bool, int, float, str, bytes, slice, type(Ellipsis), range,
                                           np.ndarray, np.generic)):
            return obj
        if isinstance(obj, complex):
            raise CannotConvert("cannot convert a complex Python number (minigrad has no complex dtypes)")
        key = id(obj)
        if key in self.memo:
            return self.memo[key][1]
        value = self._convert(obj, torch)
        self.memo[key] = (obj, value)     # obj kept alive so its id stays its own
        return value

    def _convert(self, obj, torch):
        if type(obj).__module__.startswith("torch.testing") and not isinstance(obj, types.FunctionType):
            return obj                  # the test's own metadata (an OpInfo a helper reads), not a value
        if isinstance(obj, torch.Tensor):
            return self._tensor(obj, torch)
        if isinstance(obj, torch.Size):
            return TARGET.Size(tuple(obj))
        if isinstance(obj, (list, tuple)):
            items = [self(item) for item in obj]
            if isinstance(obj, list):
                return items
            return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
        if isinstance(obj, dict):
            return {key: self(value) for key, value in obj.items()}
        if isinstance(obj, torch.dtype):
            return self._named(obj, "dtype")
        if isinstance(obj, torch.device):
            return _lookup("torch.device")(str(obj))
        if isinstance(obj, (torch.memory_format, torch.layout)):
            return self._named(obj, type(obj).__name__)
        if isinstance(obj, torch.Generator):
            generator = _lookup("torch.Generator")()
            return generator.manual_seed(obj.initial_seed())
        if isinstance(obj, types.ModuleType):
            return _module_counterpart(obj)
        if isinstance(obj, torch.nn.Module):
            return self._module(obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            cls = counterpart(type(obj), self)
            return cls(**{f.name: self(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init})
        if callable(obj):
            return counterpart(obj, self)
        raise CannotConvert(f"cannot convert {type(obj).__module__}.{type(obj).__qualname__}")

    def _module(self, module):
        """minigrad's module of the same class (the nearest public one: ``Linear`` for an
        internal subclass), with the same public attributes, PyTorch's parameters and
        buffers, and its children converted the same way (a module a sample passes, such as
        a ``distance_function`` or a ``TransformerEncoderLayer``)."""
        public = next(c for c in type(module).__mro__ if public_path(c))
        cls = counterpart(public, self)
        if getattr(cls, "__qualname__", "").startswith("missing<"):
            cls()                                   # raises Missing
        out = cls.__new__(cls)
        TARGET.nn.Module.__init__(out)
        for name, value in vars(module).items():
            if not name.startswith("_"):
                setattr(out, name, self(value))
        # PyTorch's own tables, None entries included (MultiheadAttention's in_proj_bias)
        for name, parameter in module._parameters.items():
            out.register_parameter(name, None if parameter is None else TARGET.nn.Parameter(
                self(parameter.detach()), requires_grad=parameter.requires_grad))
        for name, buffer in module._buffers.items():
            out.register_buffer(name, self(buffer), persistent=name not in module._non_persistent_buffers_set)
        for name, child in module._modules.items():
            out.add_module(name, self(child))
        return out

    def _named(self, obj, kind):
        name = str(obj).rsplit(".", 1)[-1]
        try:
            return resolve(f"{TARGET.__name__}.{name}")
        except Missing:
            raise CannotConvert(f"cannot convert torch.{name} (minigrad has no {kind} {name})") from None

    def _tensor(self, t, torch):
        if t.layout != torch.strided:
            raise CannotConvert(f"cannot convert a {t.layout} tensor")
        if t.is_complex():
            raise CannotConvert(f"cannot convert a {t.dtype} tensor (minigrad has no complex dtypes)")
        if t.device.type != "cpu":
            raise CannotConvert(f"cannot convert a tensor on {t.device}")
        dtype = self._named(t.dtype, "dtype")
        source = t.detach().resolve_neg()
        array = (source.float() if t.dtype == torch.bfloat16 else source).numpy().copy()
        out = TARGET.tensor(array, dtype=dtype)
        if t.requires_grad:
            out.requires_grad_(True)
        return out
