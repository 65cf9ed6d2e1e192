"""Op-level forward hooks (InfiniTrain's Function forward hooks; PyTorch has no registry)."""
import numpy as np
import pytest

import minigrad as torch
from minigrad.autograd import op_hooks


@pytest.fixture
def handles():
    made = []
    yield made
    for h in made:
        h.remove()


def test_pre_hook_sees_every_op_with_aten_names(handles):
    seen = []
    handles.append(op_hooks.register_op_forward_pre_hook(lambda name, args: seen.append(name)))
    x = torch.tensor([[1., 2.]], requires_grad=True)
    w = torch.tensor([[3.], [4.]], requires_grad=True)
    (x @ w).exp().sum()
    (x * 2 + 1).tanh()
    assert seen == ["mm", "exp", "sum", "mul", "add", "tanh"]


def test_pre_hook_replaces_args_and_forward_hook_replaces_output(handles):
    def double_inputs(name, args):
        if name == "add":
            return tuple(a * 2 for a in args)

    def negate_exp(name, args, out):
        if name == "exp":
            return -out

    x = torch.tensor([0., 1.], requires_grad=True)
    with op_hooks.register_op_forward_pre_hook(double_inputs), op_hooks.register_op_forward_hook(negate_exp):
        y = x + 1                    # becomes (2x) + 2
        z = x.exp()                  # becomes -exp(x)
    assert y.tolist() == [2., 4.]
    np.testing.assert_allclose(z.tolist(), -np.exp([0., 1.]), rtol=1e-6)
    (y.sum() + z.sum()).backward()   # the replaced ops are what gets differentiated
    np.testing.assert_allclose(x.grad.tolist(), 2 - np.exp([0., 1.]), rtol=1e-6)


def test_ops_inside_a_hook_do_not_fire_hooks_again(handles):
    calls = []

    def scale_everything(name, args, out):
        calls.append(name)
        return out * 1.0             # a `mul` run by the hook itself

    handles.append(op_hooks.register_op_forward_hook(scale_everything))
    torch.tensor([1., 2.]).exp()
    assert calls == ["exp"]


def test_handles_remove_and_order(handles):
    order = []
    h1 = op_hooks.register_op_forward_pre_hook(lambda n, a: order.append("first"))
    h2 = op_hooks.register_op_forward_pre_hook(lambda n, a: order.append("second"))
    handles += [h1, h2]
    torch.tensor([1.]).exp()
    h1.remove()
    h1.remove()                      # idempotent
    torch.tensor([1.]).exp()
    assert order == ["first", "second", "second"]
    with op_hooks.register_op_forward_hook(lambda n, a, o: order.append("scoped")):
        torch.tensor([1.]).exp()
    torch.tensor([1.]).exp()
    assert order.count("scoped") == 1


def test_function_class_hooks_and_op_hooks_see_custom_functions(handles):
    class Triple(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    events = []
    handles.append(Triple.register_forward_pre_hook(
        lambda cls, args: events.append(("pre", cls.__name__)) or (args[0] + 1,)))
    handles.append(Triple.register_forward_hook(
        lambda cls, args, out: events.append(("post", out.tolist()))))
    handles.append(op_hooks.register_op_forward_pre_hook(lambda name, args: events.append(("op", name))))
    x = torch.tensor([1.], requires_grad=True)
    y = Triple.apply(x)
    assert y.tolist() == [6.]        # (1 + 1) * 3: the class pre-hook replaced the input
    # ops run inside forward are op applications too (here the `a * 3`)
    assert events == [("pre", "Triple"), ("op", "add"), ("op", "Triple"), ("op", "mul"), ("post", [6.])]
    y.backward()
    assert x.grad.tolist() == [3.]
