"""Run unmodified PyTorch code on minigrad, and compare its output with real PyTorch's.

This is the machinery behind ``python -m minigrad.run`` and ``python -m minigrad.diff``
(and the differential and compatibility tests, which use the same functions):

- :func:`install` redirects ``import torch`` to minigrad: ``sys.modules["torch"]`` becomes
  the ``minigrad`` module, and a meta-path finder maps every ``import torch.X`` (``from
  torch import nn``, ``import torch.nn.functional as F``, ``from torch.autograd.graph
  import ...``) to the very module object ``minigrad.X``. Real PyTorch is never imported.
  A ``torch.X`` that minigrad lacks fails with an error that names the PyTorch API.
- :func:`run_script` runs a script the way ``python SCRIPT`` does (``__main__``,
  ``sys.argv``, the script's directory on ``sys.path``, the traceback, the exit status).
- :func:`normalise` and :func:`compare` turn two runs' outputs into "identical" or the
  first differing line with context.

Nothing here changes minigrad's behaviour unless :func:`install` is called.
"""
import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import os
import pkgutil
import re
import runpy
import sys
import types
import zipfile

ISSUES_URL = "https://github.com/minigrad/minigrad/issues"

# minigrad's subpackages that mirror PyTorch's (torch.autograd, torch.nn, ...): install()
# imports them and their submodules up front, so that a missing name in any of them gets
# the error that names the PyTorch API. Others load on first use, as in PyTorch.
_TORCH_SUBPACKAGES = ("autograd", "nn", "optim", "utils")
# Parts of the minigrad package that are not PyTorch APIs: never aliased as torch.X.
_NOT_TORCH_APIS = ("minigrad.exercises", "minigrad.viz", "minigrad.data", "minigrad.models",
                   "minigrad.run", "minigrad.diff", "minigrad.trace", "minigrad.grade",
                   "minigrad._torch_alias")

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
        _state["script"] = script
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
    sys.meta_path.insert(0, _TorchToMinigrad())
    return minigrad


def check_no_real_torch():
    """Assert every ``torch`` / ``torch.*`` entry of ``sys.modules`` is a minigrad module."""
    for name, module in list(sys.modules.items()):
        if name == "torch" or name.startswith("torch."):
            real = getattr(module, "__name__", "")
            assert real == "minigrad" or real.startswith("minigrad."), (
                f"sys.modules[{name!r}] is {real!r}, not a minigrad module: real torch leaked in")


# --- running a script like `python SCRIPT` ------------------------------------------------

def _missing_api_note(exc):
    """A hint for an exception that says minigrad lacks something PyTorch has, or None."""
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


def _script_traceback(tb, script):
    """The part of `tb` that ``python SCRIPT`` would show: from the script's first frame
    on (not runpy's and ours), without a last frame in this module (the missing-API
    error is raised here, but the script's line is where it comes from)."""
    start = tb
    while start is not None and os.path.abspath(start.tb_frame.f_code.co_filename) != script:
        start = start.tb_next
    if start is None:
        return tb
    last = start
    while last.tb_next is not None:
        if last.tb_next.tb_next is None and last.tb_next.tb_frame.f_code.co_filename == __file__:
            last.tb_next = None
            break
        last = last.tb_next
    return start


def _exec_as_main(script):
    """Execute the file `script` (an absolute path) as the ``__main__`` module, with the
    globals ``python SCRIPT`` gives it (runpy.run_path would also rewrite sys.argv[0])."""
    with io.open_code(script) as f:
        code = compile(f.read(), script, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    main.__builtins__ = builtins
    main.__annotations__ = {}
    sys.modules["__main__"] = main  # pickle finds the script's classes here, as in Python
    exec(code, main.__dict__)


def run_script(path, args=()):
    """Run the Python file `path` as ``__main__`` with ``sys.argv = [path, *args]``, like
    ``python path args...``; return its exit status.

    An uncaught exception goes to ``sys.excepthook`` with the traceback starting at the
    script's own frame (status 1); when it says minigrad lacks a PyTorch API, a note says
    which and how to compare with PyTorch. ``SystemExit`` gives its status, as in Python.
    """
    script = os.path.abspath(path)
    _state["script"] = path
    sys.argv = [path, *args]
    sys.path[0] = os.path.dirname(script)
    saved_main = sys.modules.get("__main__")
    try:
        if os.path.isfile(script) and not zipfile.is_zipfile(script):
            _exec_as_main(script)
        else:  # a directory or zip file with a __main__.py, as `python DIR` runs it
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - reported like Python's top level does
        note = _missing_api_note(e) if is_installed() else None
        if note and hasattr(e, "add_note") and note not in getattr(e, "__notes__", ()):
            e.add_note(note)
        tb = _script_traceback(e.__traceback__, script)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 1
    finally:
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return 0


# --- comparing two runs ---------------------------------------------------------------------

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_MODULE_NAME = re.compile(r"\bminigrad\.")
_FRAME = re.compile(r'^(\s*)File "([^"]+)", line \d+')
_WARNING = re.compile(r"^(.+?):\d+: (\w*Warning): ")
_CPP_LOCATION = re.compile(r" \(Triggered internally at [^)]*\)")


def normalise(text):
    """Object addresses -> ``0xADDR``; ``minigrad.`` -> ``torch.`` (``minigrad.float32``,
    ``<class 'minigrad.Tensor'>``). The only normalisation of stdout."""
    return _MODULE_NAME.sub("torch.", _ADDRESS.sub("0xADDR", text))


def normalise_stderr(text, script):
    """:func:`normalise`, then what only a library's internals make different: traceback
    frames outside `script` are dropped (with their source lines), a warning raised
    outside `script` shows ``<library>`` for its file and line, and PyTorch's
    "(Triggered internally at <C++ file>)" suffix is removed."""
    script = os.path.abspath(script)
    out, skipping_indent = [], None
    for line in _CPP_LOCATION.sub("", text).splitlines():
        if skipping_indent is not None:
            if line.startswith(skipping_indent + " ") and line.strip():
                continue  # source / caret line of a dropped frame or warning
            skipping_indent = None
        frame = _FRAME.match(line)
        if frame:
            if os.path.abspath(frame.group(2)) != script:
                skipping_indent = frame.group(1)
                continue
        else:
            warning = _WARNING.match(line)
            if warning and os.path.abspath(warning.group(1)) != script:
                line = f"<library>: {warning.group(2)}: {line[warning.end():]}"
                skipping_indent = ""
        out.append(line)
    return normalise("\n".join(out) + ("\n" if text.endswith("\n") else ""))


def _context(lines, index, n, marker):
    start = max(0, index - n)
    shown = []
    for i in range(start, min(len(lines), index + n + 1)):
        shown.append(f"{'>' if i == index else ' '} {i + 1:4d} | {lines[i]}")
    if index >= len(lines):
        shown.append(f"> {index + 1:4d} | <end of {marker}>")
    return "\n".join(shown)


def first_difference(torch_text, minigrad_text, what, context=3):
    """None if the texts are equal, else a report: the first differing line of `what`
    ("stdout", "stderr") with `context` lines around it from both sides."""
    if torch_text == minigrad_text:
        return None
    a, b = torch_text.splitlines(), minigrad_text.splitlines()
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    if i == len(a) == len(b):  # only the final newline differs
        return f"{what} differs only in its final newline"
    return (f"first difference: {what} line {i + 1}\n"
            f"--- torch\n{_context(a, i, context, what)}\n"
            f"--- minigrad\n{_context(b, i, context, what)}")


def compare(torch_run, minigrad_run, script, stderr=True, context=3):
    """Compare two runs, each a dict with ``stdout``, ``stderr`` and ``returncode``;
    return None when identical, else a report of the first difference: stdout first,
    then stderr (when `stderr`), then the exit status."""
    report = first_difference(normalise(torch_run["stdout"]), normalise(minigrad_run["stdout"]),
                              "stdout", context)
    if report is None and stderr:
        report = first_difference(normalise_stderr(torch_run["stderr"], script),
                                  normalise_stderr(minigrad_run["stderr"], script),
                                  "stderr", context)
    if report is None and torch_run["returncode"] != minigrad_run["returncode"]:
        report = (f"exit status {torch_run['returncode']} under torch, "
                  f"{minigrad_run['returncode']} under minigrad")
    if report is not None and torch_run["returncode"] != minigrad_run["returncode"]:
        tail = "\n".join(minigrad_run["stderr"].splitlines()[-6:])
        if tail and "stderr line" not in report:
            report += f"\n--- minigrad's stderr ends with\n{tail}"
    return report
