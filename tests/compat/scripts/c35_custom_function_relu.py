# The custom autograd Function example from the tutorials: a hand-written ReLU.
import torch

class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = MyReLU.apply(x)
print(y)
print(type(y.grad_fn).__name__)
print(y.grad_fn.name())
print(y.grad_fn.saved_tensors)
print(y.grad_fn.next_functions)
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x.grad)
