"""``torch.jit`` run eagerly (``minigrad/jit``) and ``torch.futures``: the decorators leave
functions as written, ``is_scripting``/``is_tracing`` are False, ``script``/``trace``/
``save``/``load`` raise an error naming what is missing and what to do. The differential
script ``tests/compat/scripts/fw02_jit_eager.py`` compares model code with PyTorch."""
from typing import Dict, List, Optional, Tuple

import pytest

import minigrad as torch
from minigrad import jit, nn


def test_decorators_return_the_function_marked_as_pytorch_marks_it():
    def f(x):
        return x + 1
    assert jit.unused(f) is f and f(1) == 2
    assert str(f._torchscript_modifier).startswith("unused")
    assert jit.ignore(f) is f and str(f._torchscript_modifier).startswith("ignore")
    with pytest.warns(FutureWarning, match="torch.jit.unused"):
        assert jit.ignore(drop=True)(f) is f
    assert str(f._torchscript_modifier).startswith("unused")
    assert jit.export(f) is f and str(f._torchscript_modifier).startswith("export")
    prop = jit.unused(property(lambda self: 1))
    assert isinstance(prop, property) and str(prop.fget._torchscript_modifier).startswith("unused")
    assert jit.script_if_tracing(f)(1) == 2 and jit._script_if_tracing(f).__name__ == "f"
    assert jit.annotate(List[int], [3]) == [3] and jit.interface(int) is int


def test_eager_queries_and_jit_isinstance():
    assert jit.is_scripting() is False and jit.is_tracing() is False
    assert jit.isinstance([1, 2], List[int]) and not jit.isinstance([1, "a"], List[int])
    assert jit.isinstance({"a": torch.ones(1)}, Dict[str, torch.Tensor])
    assert jit.isinstance((1, 2.0), Tuple[int, float]) and not jit.isinstance((1,), Tuple[int, float])
    assert jit.isinstance(None, Optional[int]) and not jit.isinstance("x", Optional[int])
    with pytest.raises(RuntimeError, match="without a contained type"):
        jit.isinstance([1], list)


def test_fork_wait_and_futures():
    fut = jit.fork(lambda a, b: a * b, 3, b=4)
    assert fut.done() and jit.wait(fut) == 12
    f = torch.futures.Future()
    chained = f.then(lambda done: done.value() + 1)
    assert not chained.done()
    f.set_result(1)
    assert chained.wait() == 2 and torch.futures.wait_all([f, chained]) == [1, 2]
    with pytest.raises(RuntimeError, match="only be marked completed once"):
        f.set_result(2)
    failed = torch.futures.Future()
    failed.set_exception(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        failed.wait()
    with pytest.raises(RuntimeError, match="set_result"):
        torch.futures.Future().wait()


@pytest.mark.parametrize("call", [lambda m: jit.script(m), lambda m: jit.trace(m, torch.ones(1, 2)),
                                  lambda m: jit.save(m, "x.pt"), lambda m: jit.load("x.pt"),
                                  lambda m: jit.freeze(m), lambda m: jit.ScriptModule()])
def test_torchscript_itself_raises_saying_what_is_missing_and_what_to_do(call):
    with pytest.raises(NotImplementedError, match="minigrad has no TorchScript") as info:
        call(nn.Linear(2, 2))
    assert "is_scripting" in str(info.value)
    assert not isinstance(nn.Linear(2, 2), jit.ScriptModule)
