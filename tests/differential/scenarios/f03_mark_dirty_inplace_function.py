"""f03: ctx.mark_dirty and InplaceFunction: a custom Function that writes to its input.

Intent (issue 27 §3): forward modifies an input in place, marks it dirty and returns
it. As in PyTorch: the returned tensor is the input object itself, its version goes up
once for the write and once more for mark_dirty, its grad_fn becomes the Function's
node (an in-place op's history: the old node is the new node's next function), and on
a view the base's history ends in CopySlices while the view's node is regenerated
(AsStridedBackward0). Errors: a leaf that requires grad, a dirty input that is not
returned, a non-tensor given to mark_dirty. Without a graph (no_grad, no input
requiring grad) the version is still bumped and the tensor returned as is.
InplaceFunction is a Function whose instances carry an ``inplace`` flag.
"""
import warnings

import torch
from torch.autograd.function import InplaceFunction


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def names(node):
    return [(n.name() if n is not None else None, i) for n, i in node.next_functions]


class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        print("  AddOne backward got", g.tolist())
        return g * 2


x = torch.tensor([1., 2.], requires_grad=True)
y = x * 1
y.register_hook(lambda g: print("  hook registered on y before AddOne:", g.tolist()))
old = y.grad_fn
print("y version before:", y._version)
z = AddOne.apply(y)
print("z is y:", z is y, "| version:", y._version, "| grad_fn:", z.grad_fn.name(),
      "| output_nr:", z.output_nr)
print("next functions:", names(z.grad_fn), "| old node was", old.name())
z.register_hook(lambda g: print("  hook registered on z after AddOne:", g.tolist()))
(z * 3).sum().backward()
print("x.grad:", x.grad.tolist(), "| y values:", y.tolist())

show_err("mark_dirty on a leaf requiring grad", lambda: AddOne.apply(x))
print("x after the refused call:", x.tolist(), x._version)
with torch.no_grad():
    w = x.detach().clone()
    r = AddOne.apply(w)
    print("under no_grad:", r is w, r.tolist(), w._version, r.requires_grad)
    r = AddOne.apply(x)
    print("under no_grad, an input requiring grad:", r is x, r.requires_grad, x.requires_grad, x._version)
plain = torch.tensor([1., 2.])
r = AddOne.apply(plain)
print("no input requires grad:", r is plain, r.tolist(), plain._version, r.requires_grad, r.grad_fn)


class Forgets(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g


class MarksANumber(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.mark_dirty(t, 5)
        return t

    @staticmethod
    def backward(ctx, g):
        return g


class DirtyNonDifferentiable(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        ctx.mark_non_differentiable(t)
        return t

    @staticmethod
    def backward(ctx, g):
        return g


nd_in = x * 1
nd_out = DirtyNonDifferentiable.apply(nd_in)
print("dirty and non-differentiable:", nd_out is nd_in, nd_out.requires_grad, nd_out.grad_fn,
      nd_in.grad_fn.name(), nd_in._version)
show_err("dirty input not returned", lambda: Forgets.apply(x * 1))
show_err("mark_dirty(t, 5)", lambda: MarksANumber.apply(x * 1))


class SavesThenDirties(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        t.mul_(2)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        t, = ctx.saved_tensors
        print("  saved (the output) is", t.tolist())
        return g * 2


x.grad = None
o = SavesThenDirties.apply(x * 1)
o.sum().backward()
print("saved then dirtied:", x.grad.tolist())


class Scale(InplaceFunction):
    @staticmethod
    def forward(ctx, t, inplace=False):
        if inplace:
            ctx.mark_dirty(t)
            return t.mul_(3)
        return t * 3

    @staticmethod
    def backward(ctx, g):
        return g * 3, None


print("InplaceFunction is a Function:", issubclass(InplaceFunction, torch.autograd.Function))
x.grad = None
base = x * 1
view = base[:1]
o = Scale.apply(view, True)
print("on a view:", o is view, view.grad_fn.name(), names(view.grad_fn), "| base:", base.grad_fn.name(),
      names(base.grad_fn))
base.sum().backward()
print("x.grad:", x.grad.tolist(), "| base:", base.tolist())
print("out of place:", Scale.apply(x, False).grad_fn.name())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    f = InplaceFunction(inplace=True)
print("InplaceFunction(inplace=True).inplace:", f.inplace, "| warned:", [w.category.__name__ for w in caught])
