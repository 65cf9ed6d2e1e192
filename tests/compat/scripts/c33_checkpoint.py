# Activation checkpointing: recompute a block in backward instead of storing it.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

block = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3))
with torch.no_grad():
    for p in block.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
calls = []
block.register_forward_hook(lambda m, i, o: calls.append("forward"))
x = torch.tensor([[1.0, 0.5, -0.5]], requires_grad=True)
y = checkpoint(block, x, use_reentrant=False)
print(y)
y.sum().backward()
print(calls)
print(x.grad)
grads_ckpt = [p.grad.clone() for p in block.parameters()]
block.zero_grad()
x2 = x.detach().clone().requires_grad_()
block(x2).sum().backward()
print(all(torch.allclose(a, p.grad) for a, p in zip(grads_ckpt, block.parameters())))
print(torch.allclose(x.grad, x2.grad))
