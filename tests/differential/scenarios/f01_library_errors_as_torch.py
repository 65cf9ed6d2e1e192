"""f01: errors raised from inside the library keep PyTorch's type and message.

Intent (issue 22 §5): each case used to fail in minigrad with an error from its own
insides (numpy's broadcast ValueError, an AttributeError naming a private attribute, a
TypeError at the first op rather than on entering the hook context). PyTorch's user
sees the message of the PyTorch layer that refuses the value:

- operands whose shapes do not broadcast: "The size of tensor a (2) must match ...",
  also when the operand is what an unpack hook returned, in the middle of a backward;
- saved_tensors_hooks(1, 2) is made without complaint and refused on entering, by the
  C++ binding, with its "incompatible function arguments" TypeError;
- a module's forward pre-hook that returns a string feeds F.linear a string: the
  argument parser's "must be Tensor, not str";
- a custom Function's backward returning a string, save_for_backward(5), and calling a
  Function instance (the removed legacy style);
- register_multi_grad_hook over a list holding a number.
"""
import torch
import torch.nn as nn
from torch.autograd.graph import register_multi_grad_hook, saved_tensors_hooks


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


x = torch.tensor([1., 2.], requires_grad=True)
show_err("ones(2) * ones(3)", lambda: torch.ones(2) * torch.ones(3))
show_err("ones(4, 2, 3) + ones(5, 3)", lambda: torch.ones(4, 2, 3) + torch.ones(5, 3))
show_err("ones(2, 3) - ones(3, 2)", lambda: torch.ones(2, 3) - torch.ones(3, 2))


def unpack_wrong_shape():
    with saved_tensors_hooks(lambda t: t, lambda t: torch.ones(3)):
        y = x * x
    y.sum().backward()


show_err("unpack hook returns shape [3] for mul", unpack_wrong_shape)
print("x.grad after the failed backward:", x.grad)

hooks = saved_tensors_hooks(1, 2)
print("saved_tensors_hooks(1, 2) made:", type(hooks).__name__)


def enter_bad_hooks():
    with hooks:
        print("  entered")


show_err("with saved_tensors_hooks(1, 2)", enter_bad_hooks)
y = x * x
print("an op after the refused hooks records:", y.grad_fn.name())

lin = nn.Linear(2, 2)
lin.register_forward_pre_hook(lambda module, args: "abc")
show_err("forward pre-hook returns a str", lambda: lin(torch.ones(2)))
show_err("F.linear(x, 'w')", lambda: torch.nn.functional.linear(torch.ones(2), "w"))


class BackwardReturnsStr(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return "s"


class SavesAnInt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(5)
        print("  forward returns after save_for_backward(5)")
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g


show_err("backward returns a str", lambda: BackwardReturnsStr.apply(x).sum().backward())
show_err("save_for_backward(5)", lambda: SavesAnInt.apply(x))
with torch.no_grad():
    show_err("save_for_backward(5) under no_grad", lambda: SavesAnInt.apply(x))
show_err("BackwardReturnsStr()(x)", lambda: BackwardReturnsStr()(x))
show_err("register_multi_grad_hook([x, 3])", lambda: register_multi_grad_hook([x, 3], print))
show_err("register_multi_grad_hook([x, 3], mode='any')",
         lambda: register_multi_grad_hook([x, 3], print, mode="any"))
