# A custom Function for P3(x) = 0.5 (5x^3 - 3x), trained for a few steps.
import torch

class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)

x = torch.linspace(-1, 1, 10)
y = x ** 3
a = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)
c = torch.tensor(0.0, requires_grad=True)
d = torch.tensor(0.3, requires_grad=True)
lr = 0.05
P3 = LegendrePolynomial3.apply
for t in range(3):
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    print(t, f"{loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= lr * p.grad
            p.grad = None
print(f"Result: b = {b.item():.4f}, d = {d.item():.4f}")
