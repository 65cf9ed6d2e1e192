# The newer custom Function style: forward without ctx, setup_context saves what backward needs.
import torch

class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(x, scale):
        return torch.tanh(x) * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.scale = scale
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        out, = ctx.saved_tensors
        t = out / ctx.scale
        return grad_output * ctx.scale * (1 - t * t), None

x = torch.tensor([0.0, 0.5, -1.0], requires_grad=True)
y = ScaledTanh.apply(x, 2.0)
print(y)
y.sum().backward()
print(x.grad)
print(torch.autograd.gradcheck(ScaledTanh.apply, (x.double().detach().requires_grad_(), 2.0)))
