# https://cloud.tencent.com/developer/ask/sof/116031018
# "how to use autograd.gradcheck": check a custom Function's backward against finite differences, in double
# precision; a wrong backward fails.
import torch
from torch.autograd import Function, gradcheck


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        return input.mm(weight.t())

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        return grad_output.mm(weight), grad_output.t().mm(input)


class WrongLinear(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        return grad_output.mm(weight), grad_output.t().mm(input) * 2   # off by a factor of 2


linear = LinearFunction.apply
input = (torch.linspace(-1, 1, 12, dtype=torch.double).reshape(4, 3).requires_grad_(),
         torch.linspace(0.5, -0.5, 6, dtype=torch.double).reshape(2, 3).requires_grad_())
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
print(gradcheck(WrongLinear.apply, input, eps=1e-6, atol=1e-4, raise_exception=False))
try:
    gradcheck(WrongLinear.apply, input, eps=1e-6, atol=1e-4)
except RuntimeError as e:
    print(str(e).splitlines()[0])
