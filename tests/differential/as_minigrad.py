"""Run a PyTorch scenario script with ``import torch`` resolving to minigrad.

Usage::

    python tests/differential/as_minigrad.py tests/differential/scenarios/s01_tensor_hook_chain_nonleaf.py

The script runs unchanged: before it starts, ``sys.modules`` gets aliases so
that ``import torch`` gives ``minigrad`` and ``torch.autograd.graph`` gives
``minigrad.autograd.graph`` (and so on for every submodule minigrad has).
Real PyTorch is never imported in this process; the runner checks that at the
end, so a trace produced here is always minigrad's own.

Exit code and stdout/stderr behave as ``python SCRIPT`` would: an uncaught
exception prints its traceback and exits with status 1.
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# torch.X -> minigrad.X, installed when minigrad.X is importable.
SUBMODULES = (
    "autograd",
    "autograd.graph",
    "autograd.function",
    "nn",
    "nn.functional",
    "nn.modules",
    "nn.modules.module",
    "utils",
    "utils.hooks",
    "utils.checkpoint",
    "optim",
)


class _TorchToMinigrad(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Redirect any other ``import torch.X`` to ``minigrad.X``.

    Without this, ``import torch.foo`` for a submodule not in SUBMODULES would
    make Python load ``minigrad/foo.py`` a second time under the name
    ``torch.foo`` (because ``torch.__path__`` is minigrad's), giving two copies
    of every class in it. Here ``torch.foo`` is the very module object
    ``minigrad.foo``, or a ModuleNotFoundError naming ``minigrad.foo``.
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("torch."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("minigrad" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass  # already executed under its minigrad name


def install_aliases():
    """Make ``torch`` and its submodules resolve to minigrad; return minigrad."""
    if "torch" in sys.modules and not sys.modules["torch"].__name__.startswith("minigrad"):
        raise RuntimeError("real torch was imported before the minigrad aliases were installed")
    import minigrad

    sys.modules["torch"] = minigrad
    for sub in SUBMODULES:
        try:
            module = importlib.import_module("minigrad." + sub)
        except ImportError:
            continue  # minigrad does not have it (yet): the script fails at its own import
        sys.modules["torch." + sub] = module
    sys.meta_path.insert(0, _TorchToMinigrad())
    return minigrad


def check_no_real_torch(minigrad):
    """Every ``torch`` / ``torch.*`` entry in sys.modules must be a minigrad module."""
    assert sys.modules.get("torch") is minigrad, "sys.modules['torch'] is not minigrad"
    for name, module in list(sys.modules.items()):
        if name == "torch" or name.startswith("torch."):
            real = getattr(module, "__name__", "")
            assert real == "minigrad" or real.startswith("minigrad."), (
                f"sys.modules[{name!r}] is {real!r}, not a minigrad module: real torch leaked in"
            )


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    script = os.path.abspath(argv[1])
    # Like `python SCRIPT`: the script's directory first on sys.path; then the
    # repository root so the working-tree minigrad is the one imported.
    sys.path[0] = os.path.dirname(script)
    if REPO_ROOT not in sys.path:
        sys.path.insert(1, REPO_ROOT)
    sys.argv = [script]
    minigrad = install_aliases()
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.stdout.flush()
        check_no_real_torch(minigrad)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
