# Measure the FLOPs of a forward and a training step with torch.utils.flop_counter,
# as the FlopCounterMode tutorial does (display=False, then read the counts).
import torch
import torch.nn as nn
from torch.utils.flop_counter import FlopCounterMode

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))
x = torch.ones(8, 16)

flop_counter = FlopCounterMode(display=False)
with flop_counter:
    model(x)
print("forward GFLOPs", flop_counter.get_total_flops() / 1e9)

with FlopCounterMode(display=False) as step_counter:
    model(x).sum().backward()
total = step_counter.get_total_flops()
print("train step FLOPs", total, "ratio to forward", total / flop_counter.get_total_flops())
for name, counts in sorted(step_counter.get_flop_counts().items()):
    print(f"{name:14s}", sum(counts.values()), sorted(str(op) for op in counts))
