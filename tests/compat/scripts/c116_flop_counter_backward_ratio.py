# https://dev-discuss.pytorch.org/t/the-ideal-pytorch-flop-counter-with-torch-dispatch/505
# how many FLOPs does backward take? Not always 2x: the first layer needs no input gradient.
import torch
import torch.nn as nn
from torch.utils.flop_counter import FlopCounterMode

model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
x = torch.ones(4, 32)

with FlopCounterMode(display=False) as fwd:
    out = model(x)
with FlopCounterMode(display=False) as bwd:
    out.sum().backward()
print("forward:", fwd.get_total_flops())
print("backward:", bwd.get_total_flops())
print("ratio:", round(bwd.get_total_flops() / fwd.get_total_flops(), 3))

x_req = torch.ones(4, 32, requires_grad=True)
with FlopCounterMode(display=False) as bwd_with_input:
    model(x_req).sum().backward()
print("forward+backward with input grad:", bwd_with_input.get_total_flops())
