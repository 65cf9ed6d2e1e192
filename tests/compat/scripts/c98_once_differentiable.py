# https://discuss.pytorch.org/t/what-does-the-function-wrapper-once-differentiable-do/31513
# a backward marked @once_differentiable works once and refuses double backward.
import torch
from torch.autograd.function import once_differentiable


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        print("grad_output requires grad:", grad_output.requires_grad)
        return 3 * x ** 2 * grad_output


class CubeTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * grad_output


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x).sum()
y.backward()
print(x.grad)

g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
print(g, g.requires_grad, g.grad_fn)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

g2, = torch.autograd.grad(CubeTwice.apply(x).sum(), x, create_graph=True)
print(g2)
h, = torch.autograd.grad(g2.sum(), x)
print(h)
