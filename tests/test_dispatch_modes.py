"""TorchDispatchMode, TorchFunctionMode and FlopCounterMode: the mode stack's semantics,
the aten names the op rows carry (checked against PyTorch), and that no mode costs
nothing but a check. The full traces against PyTorch are the differential scenarios
d01-d03 (tests/differential/scenarios)."""
import sys

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad import _dispatch, _ops, overrides
from minigrad.nn import functional as F
from minigrad.utils import _python_dispatch
from minigrad.utils._python_dispatch import (OpOverloadPacket, TorchDispatchMode,
                                             _get_current_dispatch_mode_stack)
from minigrad.utils.flop_counter import FlopCounterMode


class Logger(TorchDispatchMode):
    def __init__(self, seen, tag=""):
        super().__init__()
        self.seen, self.tag = seen, tag

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(self.tag + str(func))
        return func(*args, **(kwargs or {}))


def test_a_mode_sees_forward_and_backward_ops_with_aten_names():
    seen = []
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0])
    with Logger(seen):
        (a * b).sum(0).backward()
    # PyTorch also shows ones_like (the root gradient) and detach (storing .grad)
    assert seen == ["aten.mul.Tensor", "aten.sum.dim_IntList", "aten.unsqueeze.default",
                    "aten.expand.default", "aten.mul.Tensor"]
    assert a.grad.tolist() == [3.0, 4.0]


def test_modes_nest_innermost_first_and_each_is_off_the_stack_while_it_runs():
    seen, depths = [], []

    class Depth(Logger):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            depths.append(len(_get_current_dispatch_mode_stack()))
            return super().__torch_dispatch__(func, types, args, kwargs)

    with Depth(seen, "outer:"), Depth(seen, "inner:"):
        mg.tensor([1.0]) + 1
    assert seen == ["inner:aten.add.Tensor", "outer:aten.add.Tensor"]
    assert depths == [1, 0]
    assert _get_current_dispatch_mode_stack() == []


def test_ops_a_mode_runs_itself_go_to_the_modes_below_it():
    seen = []

    class Doubler(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {})) * 2

    with Logger(seen, "outer:"), Doubler():
        y = mg.tensor([1.0, 2.0]) + 1
    assert y.tolist() == [4.0, 6.0]
    assert seen == ["outer:aten.add.Tensor", "outer:aten.mul.Tensor"]


def test_a_replaced_result_gets_the_ops_node_and_gradient():
    class Zeroes(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out * 0 if func.overloadpacket.__name__ == "mul" else out

    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    with Zeroes():
        y = a * b
    assert y.tolist() == [0.0, 0.0]
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0]


def test_a_mode_that_raises_leaves_the_stack_and_the_engine_usable():
    class Refuses(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ValueError(f"no {func}")

    a = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="no aten.mul.Tensor"):
        with Refuses():
            a * 2
    assert _get_current_dispatch_mode_stack() == []
    (a * 2).sum().backward()
    assert a.grad.tolist() == [2.0]


def test_a_mode_returning_no_tensor_is_told_what_to_return():
    class Forgets(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            func(*args, **(kwargs or {}))

    with pytest.raises(RuntimeError, match=r"Forgets.__torch_dispatch__ returned NoneType for aten.add"):
        with Forgets():
            mg.tensor([1.0]) + 1


def test_func_looks_like_an_op_overload():
    funcs = []

    class Keep(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            funcs.append((func, types, args))
            return func(*args, **(kwargs or {}))

    x = mg.tensor([[1.0, 2.0]])
    with Keep():
        x.mm(x.t())
        x * 3
    (t, _, _), (mm, types, args), (mul, _, mul_args) = funcs
    assert str(mm) == "aten.mm.default" and mm.name() == "aten::mm" and mm.__name__ == "mm.default"
    assert repr(mm) == "<OpOverload(op='aten.mm', overload='default')>"
    assert mm.overloadpacket is OpOverloadPacket("mm") and str(mm.overloadpacket) == "aten.mm"
    assert repr(mul.overloadpacket) == "<OpOverloadPacket(op='aten.mul')>"
    assert mul.name() == "aten::mul.Tensor"
    assert types == (mg.Tensor,) and args[0] is x
    assert mul_args[1] == 3 and not isinstance(mul_args[1], mg.Tensor)     # a number stays a number


def test_with_no_mode_apply_op_never_calls_the_mode_machinery(monkeypatch):
    def fail(*args):
        raise AssertionError("dispatch called with no mode active")
    monkeypatch.setattr(_python_dispatch, "dispatch", fail)
    assert (mg.tensor([1.0]) * 2).tolist() == [2.0]


def test_every_op_row_names_an_aten_overload_torch_has():
    torch = pytest.importorskip("torch")
    modules = [m for name, m in list(sys.modules.items()) if name.startswith("minigrad")]
    rows = {id(v): v for module in modules for v in vars(module).values() if isinstance(v, _dispatch.Op)}
    rows = list(rows.values())
    assert len(rows) > 90 and _ops.mm in rows and F._addmm in rows
    for row in rows:
        packet, overload = row.aten.split(".")
        assert overload in getattr(torch.ops.aten, packet).overloads(), row.aten


def _flops_by_module(counter):
    return {name: {str(op): n for op, n in ops.items()} for name, ops in counter.get_flop_counts().items()}


@pytest.mark.parametrize("input_requires_grad", [False, True])
def test_flop_counter_matches_torch_on_linear_and_conv_models(input_requires_grad):
    torch = pytest.importorskip("torch")

    def run(lib):
        from_lib = __import__(f"{lib.__name__}.utils.flop_counter", fromlist=["FlopCounterMode"])
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3, stride=2, padding=1), lib.nn.ReLU(),
                                  lib.nn.Flatten(), lib.nn.Linear(27, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        x = lib.ones(2, 2, 6, 6).requires_grad_(input_requires_grad)
        with from_lib.FlopCounterMode(display=False) as counter:
            model(x).sum().backward()
        counts = _flops_by_module(counter)
        # per op only where no convolution ran: PyTorch counts a convolution's backward
        # under aten.convolution_backward, minigrad under aten.mm (the same flops)
        return (counter.get_total_flops(), {k: sum(v.values()) for k, v in counts.items()},
                {k: v for k, v in counts.items() if k in ("Sequential.3", "Sequential.5")})

    assert run(mg) == run(torch)


def test_flop_counter_table_lists_modules_and_ops(capsys):
    model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    with FlopCounterMode(depth=1):
        model(mg.ones(5, 4))
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["Module", "FLOP", "%", "Total"]
    assert "Sequential" in table and " - aten.addmm" in table and "100.00%" in table
    assert "Sequential.0" not in table         # below depth 1


def test_function_mode_sees_public_calls_and_puts_the_originals_back():
    original_add, original_tensor_add = mg.add, mg.Tensor.__add__
    seen = []

    class Calls(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    a = mg.tensor([1.0, 2.0])
    with Calls():
        mg.add(a, a)
        a + 1
        F.relu(a)
        assert mg.add is not original_add
    assert seen == ["add", "add", "relu"]
    # PyTorch 2.13: 'torch.add', 'torch.Tensor.sum', 'torch.nn.functional.relu' (and None for
    # autograd.backward); minigrad's names carry its module name, as its dtypes and classes do
    assert [overrides.resolve_name(f) for f in (mg.add, mg.Tensor.sum, F.relu, mg.autograd.backward)] == \
        ["minigrad.add", "minigrad.Tensor.sum", "minigrad.nn.functional.relu", None]
    assert mg.add is original_add and mg.Tensor.__add__ is original_tensor_add
    assert (a + 1).tolist() == [2.0, 3.0]


def test_function_mode_operator_is_reported_as_the_named_method():
    funcs = []

    class Keep(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            funcs.append(func)
            return func(*args, **(kwargs or {}))

    a = mg.tensor([1.0])
    with Keep():
        a * a
        assert funcs[0] is mg.Tensor.mul
        assert overrides.resolve_name(funcs[0]) == "minigrad.Tensor.mul"
    assert np.allclose((a * a).numpy(), [1.0])
