# Count the aten ops a training step runs with a TorchDispatchMode, the way profiling
# posts do it: a Counter keyed by func.overloadpacket, forward and backward separately.
from collections import Counter

import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func.overloadpacket)] += 1
        return func(*args, **(kwargs or {}))


model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.linspace(-1, 1, 6).reshape(2, 3)
target = torch.tensor([[0.5], [-0.5]])

with OpCounter() as forward:
    loss = ((model(x) - target) ** 2).mean()
with OpCounter() as backward:
    loss.backward()
interesting = ("aten.addmm", "aten.mm", "aten.tanh", "aten.tanh_backward", "aten.pow", "aten.mean")
print("forward ", {op: forward.counts[op] for op in interesting if forward.counts[op]})
print("backward", {op: backward.counts[op] for op in interesting if backward.counts[op]})
print(f"loss {loss.item():.4f}")
