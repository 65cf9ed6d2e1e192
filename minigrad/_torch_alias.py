"""The ``import torch`` redirect: run unmodified PyTorch code on minigrad.

This is what ``python -m minigrad.run`` (and the differential and compatibility tests)
install before running a script:

- :func:`install` redirects ``import torch`` to minigrad: ``sys.modules["torch"]`` becomes
  the ``minigrad`` module, and a meta-path finder maps every ``import torch.X`` (``from
  torch import nn``, ``import torch.nn.functional as F``, ``from torch.autograd.graph
  import ...``) to the very module object ``minigrad.X``. Real PyTorch is never imported.
  A ``torch.X`` that minigrad lacks fails with an error that names the PyTorch API.
- :func:`missing_api_note` turns an exception that says minigrad lacks something into a
  hint naming the PyTorch API (``minigrad.run`` adds it to the traceback).

Nothing here changes minigrad's behaviour unless :func:`install` is called.
"""
import importlib
import importlib.abc
import importlib.util
import pkgutil
import re
import sys
import types

ISSUES_URL = "https://github.com/minigrad/minigrad/issues"

# minigrad's subpackages that mirror PyTorch's (torch.autograd, torch.nn, ...): install()
# imports them and their submodules up front, so that a missing name in any of them gets
# the error that names the PyTorch API. Others load on first use, as in PyTorch.
_TORCH_SUBPACKAGES = ("autograd", "nn", "optim", "utils")
# Parts of the minigrad package that are not PyTorch APIs: never aliased as torch.X.
_NOT_TORCH_APIS = ("minigrad.exercises", "minigrad.viz", "minigrad.data", "minigrad.models",
                   "minigrad.run", "minigrad.diff", "minigrad.trace", "minigrad.grade",
                   "minigrad._torch_alias")

# PyTorch modules that minigrad keeps at another path: grad mode is the top-level
# minigrad.grad_mode (the engine's bottom layer needs it), which torch keeps in autograd.
_RELOCATED = {"torch.autograd.grad_mode": "minigrad.grad_mode"}

_state = {"script": "SCRIPT.py"}  # the script being run, for the hints in error messages


def torch_name(minigrad_name):
    """``"minigrad.nn.functional"`` -> ``"torch.nn.functional"``."""
    return "torch" + minigrad_name[len("minigrad"):]


def missing_api_message(api):
    """The message for a PyTorch API (``"torch.foo"``, ``"torch.Tensor.foo"``) that the
    script used and minigrad does not have."""
    return (f"minigrad has no {api} yet (the script used {api}). "
            f"See what real PyTorch does: python -m minigrad.diff {_state['script']}; "
            f"ask for it: {ISSUES_URL}")


class TorchNamespace(types.ModuleType):
    """The class minigrad's modules take while the redirect is installed: a missing
    attribute raises an AttributeError that names the PyTorch API the script asked for
    (``torch.nn.foo``) instead of ``module 'minigrad.nn' has no attribute 'foo'``.

    Only reached after the normal lookup (including a module's own ``__getattr__``) fails.
    """

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            # dunder probes (__path__, __wrapped__, ...) come from Python itself, not the script
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        raise AttributeError(missing_api_message(f"{torch_name(self.__name__)}.{name}"),
                             name=name, obj=self)


def _as_torch_namespace(module):
    if isinstance(module, types.ModuleType) and type(module) is types.ModuleType:
        module.__class__ = TorchNamespace
    return module


class _TorchToMinigrad(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import torch.X`` gives the module object ``minigrad.X`` itself (never a second
    copy of it), or a ModuleNotFoundError naming ``torch.X`` when minigrad lacks it."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("torch."):
            return None
        target_name = "minigrad" + fullname[len("torch"):]
        try:
            found = importlib.util.find_spec(target_name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(missing_api_message(fullname), name=fullname)
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module("minigrad" + spec.name[len("torch"):])
        spec.loader_state = module.__spec__  # the import system overwrites __spec__ next
        return _as_torch_namespace(module)

    def exec_module(self, module):
        # Already executed under its minigrad name; give it back its own spec.
        module.__spec__ = module.__spec__.loader_state


def _torch_submodules():
    """Names of the modules in minigrad's subpackages that mirror PyTorch's, found
    without importing anything else."""
    import minigrad
    names, todo = [], [("minigrad", minigrad.__path__)]
    while todo:
        prefix, path = todo.pop()
        for info in pkgutil.iter_modules(path):
            name = f"{prefix}.{info.name}"
            if prefix == "minigrad" and info.name not in _TORCH_SUBPACKAGES:
                continue
            names.append(name)
            if info.ispkg:
                todo.append((name, importlib.util.find_spec(name).submodule_search_locations))
    return sorted(names)


def name_script(path):
    """Name ``path`` (the script being run) in the hints of missing-API errors."""
    _state["script"] = path


def is_installed():
    """True when ``sys.modules["torch"]`` is minigrad."""
    return getattr(sys.modules.get("torch"), "__name__", None) == "minigrad"


def install(script=None):
    """Make ``import torch`` and every ``import torch.X`` resolve to minigrad; return the
    ``minigrad`` module. ``script`` (a path) only appears in the hints of error messages.

    Raises RuntimeError if real PyTorch was already imported in this process: two
    frameworks in one process would mix their tensors.
    """
    if script is not None:
        name_script(script)
    if is_installed():
        return sys.modules["torch"]
    if "torch" in sys.modules:
        raise RuntimeError("real torch was imported before the minigrad redirect was installed")
    import minigrad
    for name in _torch_submodules():
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # an optional dependency is missing: that part fails when the script uses it
    for name, module in list(sys.modules.items()):
        if name == "minigrad" or (name.startswith("minigrad.") and not name.startswith(_NOT_TORCH_APIS)):
            _as_torch_namespace(module)
            sys.modules["torch" + name[len("minigrad"):]] = module
    for torch_module, minigrad_module in _RELOCATED.items():
        sys.modules[torch_module] = sys.modules[minigrad_module]
    sys.meta_path.insert(0, _TorchToMinigrad())
    return minigrad


def check_no_real_torch():
    """Assert every ``torch`` / ``torch.*`` entry of ``sys.modules`` is a minigrad module."""
    for name, module in list(sys.modules.items()):
        if name == "torch" or name.startswith("torch."):
            real = getattr(module, "__name__", "")
            assert real == "minigrad" or real.startswith("minigrad."), (
                f"sys.modules[{name!r}] is {real!r}, not a minigrad module: real torch leaked in")


def missing_api_note(exc):
    """A hint for an exception that says minigrad lacks something PyTorch has, or None
    (always None when the redirect is not installed)."""
    if not is_installed():
        return None
    if isinstance(exc, AttributeError) and not isinstance(getattr(exc, "obj", None), types.ModuleType):
        obj, name = getattr(exc, "obj", None), getattr(exc, "name", None)
        cls = obj if isinstance(obj, type) else type(obj)
        if name and cls.__module__.startswith("minigrad"):
            return (f"minigrad's {cls.__name__} has no attribute {name!r}. If PyTorch has "
                    f"{torch_name('minigrad.' + cls.__name__)}.{name}, minigrad does not yet: "
                    f"compare with python -m minigrad.diff {_state['script']}; ask for it: {ISSUES_URL}")
    if isinstance(exc, ImportError) and not isinstance(exc, ModuleNotFoundError):
        m = re.match(r"cannot import name '([^']+)' from '(minigrad[\w.]*)'", str(exc))
        if m:
            return missing_api_message(f"{torch_name(m.group(2))}.{m.group(1)}")
    return None
