# https://pytorch.org/docs/2.3/_sources/notes/extending.rst.txt
# "Extending torch.autograd": LinearFunction skips gradients nobody asked for with ctx.needs_input_grad,
# MulConstant returns None for a non-tensor.
import torch
from torch.autograd import Function


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        print("needs_input_grad:", ctx.needs_input_grad)
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


linear = LinearFunction.apply
x = torch.arange(6.0).reshape(2, 3)
w = torch.linspace(-1, 1, 12).reshape(4, 3).requires_grad_()
b = torch.tensor([0.5, -0.5, 1.0, 0.0], requires_grad=True)
out = linear(x, w, b)
print(out)
print(out.grad_fn.name())
out.sum().backward()
print(w.grad)
print(b.grad)

x.requires_grad_()
w.grad = None
y = linear(x, w)
(y * y).sum().backward()
print(x.grad)
print(w.grad)

ref = torch.nn.functional.linear(x.detach(), w.detach(), b.detach())
print(torch.allclose(linear(x, w, b), ref))

z = MulConstant.apply(b, 3.0)
z.sum().backward()
print(z, b.grad)
