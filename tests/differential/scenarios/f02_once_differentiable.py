"""f02: @once_differentiable: backward runs with grad mode off, a double backward raises.

Intent (issue 27 §3): the decorator used to do nothing, so a backward built from
minigrad ops recorded a graph under create_graph and a second differentiation
silently used it. PyTorch runs the decorated backward under no_grad; when the
incoming gradients require grad (create_graph with a grad_output that requires grad),
each returned gradient is a detached alias whose grad_fn is an Error node
("torch::autograd::Error"), so differentiating it again raises PyTorch's message.
With plain gradients (no graph wanted) nothing is wrapped: the result has no grad_fn.
"""
import torch
from torch.autograd.function import once_differentiable


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def names(node):
    return [(n.name() if n is not None else None, i) for n, i in node.next_functions]


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print("  backward: grad mode", torch.is_grad_enabled(), "| g requires grad", g.requires_grad,
              "| saved x requires grad", x.requires_grad)
        r = 2 * x * g
        print("  backward: result requires grad", r.requires_grad)
        return r


print("wrapped name:", Square.backward.__name__)
x = torch.tensor([1., 2.], requires_grad=True)

y = Square.apply(x)
g, = torch.autograd.grad(y.sum(), x)
print("plain grad:", g.tolist(), g.requires_grad, g.grad_fn)

y = Square.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print("create_graph, grad_output without grad:", g.tolist(), g.requires_grad, g.grad_fn)
show_err("backward through it", lambda: g.sum().backward())

y = Square.apply(x)
v = torch.ones(2, requires_grad=True)
g, = torch.autograd.grad(y, x, v, create_graph=True)
print("create_graph, grad_output requires grad:", g.tolist(), g.requires_grad, g.is_leaf)
print("  grad_fn:", g.grad_fn.name(), type(g.grad_fn).__name__, names(g.grad_fn))
show_err("double backward", lambda: g.sum().backward())
print("x.grad, v.grad after the failed double backward:", x.grad, v.grad)


class Product(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, None


a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
out = Product.apply(a, b)
ga, gb = torch.autograd.grad(out, (a, b), torch.ones(2, requires_grad=True), create_graph=True,
                             allow_unused=True)
print("two inputs:", ga.tolist(), ga.grad_fn.name(), gb)
show_err("double backward through the first", lambda: ga.sum().backward())

out = Product.apply(a, b)
out.sum().backward()
print("ordinary backward:", a.grad.tolist(), b.grad)
