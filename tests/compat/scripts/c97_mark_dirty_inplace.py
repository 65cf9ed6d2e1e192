# https://docs.pytorch.org/docs/2.13/generated/torch.autograd.function.BackwardCFunction.html
# mark_dirty: a Function that changes its input in place must say so, or autograd cannot catch the stale
# value.
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class Inplace(Function):
    @staticmethod
    def forward(ctx, x):
        x_npy = x.numpy()  # x_npy shares storage with x
        x_npy += 1
        ctx.mark_dirty(x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        return grad_output


a = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
print(a._version)
b = a * a
out = Inplace.apply(a)
print(out is a, a, a._version)
print(type(a.grad_fn).__name__)
try:
    b.backward()
except RuntimeError as e:
    print("RuntimeError:", e)

leaf = torch.tensor([1.0, 2.0], requires_grad=True)
x = leaf * 1
y = Inplace.apply(x)
print(y, y.grad_fn.name())
(y * y).sum().backward()
print(leaf.grad)
