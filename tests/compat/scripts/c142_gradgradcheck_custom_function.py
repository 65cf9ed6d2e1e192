# https://pytorch.org/docs/stable/generated/torch.autograd.gradcheck.gradgradcheck
# gradgradcheck: a custom Function whose backward is written with differentiable ops passes the second-order
# check too.
import torch
from torch.autograd import gradcheck, gradgradcheck


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    return Sinh.apply(x)[0]


x = torch.tensor([-1.0, 0.0, 0.5, 2.0], dtype=torch.double, requires_grad=True)
print(sinh(x))
print(gradcheck(sinh, x), gradgradcheck(sinh, x))
g, = torch.autograd.grad(sinh(x).sum(), x, create_graph=True)
print(g)
h, = torch.autograd.grad(g.sum(), x)
print(h)
print(torch.allclose(h, (torch.exp(x) - torch.exp(-x)) / 2))
