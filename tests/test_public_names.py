"""Every public module of minigrad says what its API is (the code-clarity issue).

A module is public when no component of its dotted path after ``minigrad`` starts with
``_`` (``__main__`` scripts excepted). Each one must define ``__all__``, list in it every
attribute whose name does not start with ``_`` (module objects such as ``np`` excepted:
``import numpy as np`` is fine, and so is ``from __future__ import annotations``), and define every
name it lists (a module-level
``__getattr__`` may serve a listed name lazily, as ``minigrad.viz`` does for
``EngineStepper``). An imported class or function that is not part of the module's API
is therefore imported under an ``_`` name or reached through its module.
"""
import __future__
import importlib
import pkgutil
import types

import pytest

import minigrad


def public_modules():
    names = ["minigrad"] + [info.name for info in pkgutil.walk_packages(minigrad.__path__, "minigrad.")]
    return [name for name in names
            if not any(part.startswith("_") for part in name.split(".")[1:])]


PUBLIC_MODULES = public_modules()


def test_the_walk_finds_the_public_modules():
    assert {"minigrad", "minigrad.nn.functional", "minigrad.exercises.lesson00",
            "minigrad.trace.recorder", "minigrad.viz.drawing"} <= set(PUBLIC_MODULES)
    assert not any("._" in name for name in PUBLIC_MODULES)


def served_lazily(module, name):
    getattr_hook = vars(module).get("__getattr__")
    if getattr_hook is None:
        return False
    try:
        getattr_hook(name)
    except AttributeError:
        return False
    return True


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_names_are_listed_in_all(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    listed = set(module.__all__)
    assert len(listed) == len(module.__all__), f"{name}.__all__ lists a name twice"
    public = {attr for attr, value in vars(module).items()
              if not attr.startswith("_") and not isinstance(value, (types.ModuleType, __future__._Feature))}
    leaked = sorted(public - listed)
    assert not leaked, (f"{name} has public names missing from its __all__: {leaked}; "
                        "add it to __all__ or make it private (leading '_', or import the module instead)")
    undefined = sorted(attr for attr in listed - set(vars(module)) if not served_lazily(module, attr))
    assert not undefined, f"{name}.__all__ lists names the module does not define: {undefined}"
