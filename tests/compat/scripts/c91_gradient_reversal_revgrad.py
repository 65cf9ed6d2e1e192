# https://github.com/tadeephuy/GradientReversal
# the gradient reversal layer (identity forward, -alpha * grad backward) as a function and as a module.
import torch
from torch import nn


class GradientReversalFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        _, alpha = ctx.saved_tensors
        grad_input = None
        if ctx.needs_input_grad[0]:
            grad_input = -alpha * grad_output
        return grad_input, None


revgrad = GradientReversalFunction.apply


class GradientReversal(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = torch.tensor(alpha, requires_grad=False)

    def forward(self, x):
        return revgrad(x, self.alpha)


alpha = torch.tensor([1.])
x = torch.tensor([4.], requires_grad=True)
x_rev = torch.tensor([4.], requires_grad=True)

y = x * 5
y = y + 6
y_rev = x_rev * 5
y_rev = revgrad(y_rev, alpha)
y_rev = y_rev + 6
print(y_rev.grad_fn, y_rev.grad_fn.next_functions[0][0].name())
y.backward()
y_rev.backward()
print(f'x gradient: {x.grad}')
print(f'reversed x gradient: {x_rev.grad}')
assert x.grad == -x_rev.grad

net = nn.Sequential(nn.Linear(3, 2), GradientReversal(alpha=0.5))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
out = net(torch.tensor([[1.0, 2.0, 3.0]]))
print(out)
out.sum().backward()
print(net[0].weight.grad)
print(net[0].bias.grad)
