# Fit y = 2x + 1 with a hand-written loop; print the loss the way tutorials do.
import torch

x = torch.linspace(-1, 1, 8).unsqueeze(1)
y = 2 * x + 1
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(5):
    pred = x @ w + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
    print(f"epoch {epoch}: loss {loss:.4f}")
print(f"final loss: {loss:.5f}")
print(f"a 0-d tensor in an f-string: {torch.tensor(0.25)}")
print(f"w = {w.item():.3f}, b = {b.item():.3f}")
print("loss repr:", repr(loss))
print("detached:", loss.detach())
