# https://joehalliwell.com/blog/posts/clamp-with-grad.html
# clamp_with_grad: a clamp whose backward still pushes values back into range.
import math

import torch


def get_gradient(f, xs):
    xs = xs.detach().clone()
    xs.requires_grad = True
    ys = f(xs)
    ys.backward(torch.ones_like(ys))
    return xs.grad.detach()


class ClampWithGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, min, max):
        ctx.min = min
        ctx.max = max
        ctx.save_for_backward(input)
        return input.clamp(min, max)

    @staticmethod
    def backward(ctx, grad_in):
        input, = ctx.saved_tensors
        return grad_in * (grad_in * (input - input.clamp(ctx.min, ctx.max)) >= 0), None, None


clamp_with_grad = ClampWithGrad.apply


class ClampWithGrad2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, min, max):
        ctx.min = min
        ctx.max = max
        ctx.save_for_backward(input)
        return input.clamp(min, max)

    @staticmethod
    def backward(ctx, grad_in):
        input, = ctx.saved_tensors
        clamped = input.clamp(ctx.min, ctx.max)
        delta = input - clamped
        v = torch.where(delta == 0, grad_in, torch.sign(delta))
        return v, None, None


clamp_with_grad2 = ClampWithGrad2.apply

x = torch.linspace(-2, 2, 9)
for name, fn in [("clamp", torch.clamp), ("clamp_with_grad", clamp_with_grad),
                 ("clamp_with_grad2", clamp_with_grad2)]:
    def loss(t, fn=fn):
        return torch.sin(fn(t, -1, 1) * math.pi) + 1
    print(name, get_gradient(loss, x))

y = clamp_with_grad(x.clone().requires_grad_(), -1, 1)
print(y.grad_fn.name(), y)
