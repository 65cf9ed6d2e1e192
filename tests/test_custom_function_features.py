"""Custom Function features and inference tensors, checked without torch.

The differential scenarios (f02 once_differentiable, f03 mark_dirty, f04 custom Functions,
f06 inference mode) compare these with PyTorch, but only where torch is installed. These
run everywhere; the expected values are what PyTorch 2.13 gives for the same code. Each
test fails when its feature is taken out of minigrad (the error node of
once_differentiable, the version bump of mark_dirty, set_materialize_grads(False), the
refusal to save an inference tensor).
"""
import pytest

import minigrad as torch
from minigrad.autograd.function import once_differentiable

INFERENCE_SAVE_ERROR = ("Inference tensors cannot be saved for backward. Please do not use Tensors created "
                        "in inference mode in computation tracked by autograd. To work around this, you "
                        "can make a clone to get a normal tensor and use it in autograd, or use "
                        "`torch.no_grad()` instead of `torch.inference_mode()`.")


class Square(torch.autograd.Function):
    grad_mode_in_backward = []

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        Square.grad_mode_in_backward.append(torch.is_grad_enabled())
        return 2 * x * g


def test_once_differentiable_puts_an_error_node_under_create_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.ones(2, requires_grad=True)          # a grad_output that requires grad
    g, = torch.autograd.grad(Square.apply(x), x, v, create_graph=True)
    assert Square.grad_mode_in_backward[-1] is False
    assert (g.tolist(), g.requires_grad, g.grad_fn.name()) == ([2.0, 4.0], True, "torch::autograd::Error")
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was marked "
                                           "with @once_differentiable$"):
        g.sum().backward()
    g, = torch.autograd.grad(Square.apply(x).sum(), x)      # no graph wanted: nothing wrapped
    assert (g.grad_fn, g.requires_grad) == (None, False)


class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def test_mark_dirty_bumps_the_version_once_more_and_returns_the_input():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    y = AddOne.apply(x)
    assert (x._version, y is x, y.grad_fn.name(), a._version) == (2, True, "AddOneBackward", 0)
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


class TwoOutputs(torch.autograd.Function):
    received = []

    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        TwoOutputs.received.append(None if g2 is None else g2.tolist())
        return g1 * 2 + (g2 * 3 if g2 is not None else 0), None


@pytest.mark.parametrize("materialize, second_gradient", [(True, [0.0, 0.0]), (False, None)])
def test_set_materialize_grads_false_gives_backward_none_for_an_unused_output(materialize, second_gradient):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    first, _ = TwoOutputs.apply(x, materialize)
    first.sum().backward()
    assert TwoOutputs.received[-1] == second_gradient
    assert x.grad.tolist() == [2.0, 2.0]


class SaveSecond(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, c):
        ctx.save_for_backward(c)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


def test_an_inference_tensor_cannot_be_saved_for_backward():
    with torch.inference_mode():
        c = torch.ones(2)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        SaveSecond.apply(x, c)
    assert str(info.value) == INFERENCE_SAVE_ERROR
    with pytest.raises(RuntimeError) as info:
        x * c                                       # mul saves c for x's gradient
    assert str(info.value) == INFERENCE_SAVE_ERROR
    assert (x * c.clone()).tolist() == [1.0, 2.0]   # the workaround the message names
