# https://bitorch.readthedocs.io/en/latest/_autosummary/bitorch.layers.qactivation.GradientCancellation.html
# binarize with sign in forward, straight-through gradient only where |x| <= threshold.
import torch
from torch.autograd import Function


class GradientCancellation(Function):
    @staticmethod
    def forward(ctx, input_tensor, threshold):
        ctx.save_for_backward(input_tensor, torch.tensor(threshold, device=input_tensor.device))
        return torch.where(input_tensor >= 0, torch.tensor(1.0), torch.tensor(-1.0))

    @staticmethod
    def backward(ctx, output_grad):
        input_tensor, threshold = ctx.saved_tensors
        return output_grad * (torch.abs(input_tensor) <= threshold), None


class STE(Function):
    @staticmethod
    def forward(ctx, input_tensor):
        return torch.sign(input_tensor)

    @staticmethod
    def backward(ctx, output_gradient):
        return output_gradient


x = torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.5], requires_grad=True)
y = GradientCancellation.apply(x, 1.0)
print(y)
print(y.grad_fn)
(y * torch.arange(1.0, 6.0)).sum().backward()
print(x.grad)

x.grad = None
z = STE.apply(x)
print(z, z.requires_grad)
(z * torch.arange(1.0, 6.0)).sum().backward()
print(x.grad)

w = torch.tensor([[0.4, -1.2], [2.0, -0.1]], requires_grad=True)
binary_w = GradientCancellation.apply(w, 1.0)
out = torch.tensor([[1.0, 2.0]]) @ binary_w
out.sum().backward()
print(binary_w)
print(w.grad)
