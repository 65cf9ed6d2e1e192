# https://app.semanticdiff.com/gh/strisunshinewentingwang/pytorch/commit/1b1b9c870695f8d0e2796f06f36d9f7709b5080e
# FlopCounterMode (pytorch#95751) counts forward and backward FLOPs per module.
import torch
import torch.nn as nn
from torch.utils.flop_counter import FlopCounterMode

mod = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
inp = torch.ones(2, 8)
flop_counter = FlopCounterMode(depth=1, display=False)
with flop_counter:
    mod(inp).sum().backward()
print(flop_counter.get_total_flops())
counts = flop_counter.get_flop_counts()
for module_name in sorted(counts):
    print(module_name, {str(op): n for op, n in counts[module_name].items()})

with FlopCounterMode(display=False) as forward_only:
    mod(inp)
print(forward_only.get_total_flops())
