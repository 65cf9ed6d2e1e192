# FlopCounterMode: totals and per-module counts for Linear, matmul and conv models,
# forward and backward. For the conv model only the totals are compared: PyTorch counts
# the convolution's backward under aten.convolution_backward, minigrad under aten.mm
# (the same number of flops; docs/differences.md).
import torch
import torch.nn as nn
from torch.utils.flop_counter import FlopCounterMode


def deterministic(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
    return module


def per_module(counter):
    counts = counter.get_flop_counts()
    return {name: sorted((str(op), n) for op, n in counts[name].items()) for name in sorted(counts)}


def module_totals(counter):
    counts = counter.get_flop_counts()
    return {name: sum(counts[name].values()) for name in sorted(counts)}


mlp = deterministic(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
x = torch.linspace(-1, 1, 20).reshape(5, 4)
with FlopCounterMode(display=False) as forward:
    loss = mlp(x).sum()
with FlopCounterMode(display=False) as backward:
    loss.backward()
print("mlp forward", forward.get_total_flops(), per_module(forward))
print("mlp backward", backward.get_total_flops(), per_module(backward))
with FlopCounterMode(display=False) as both:
    mlp(x.requires_grad_()).sum().backward()
print("mlp both", both.get_total_flops(), per_module(both))

m = torch.linspace(-1, 1, 12).reshape(3, 4).requires_grad_()
n = torch.linspace(0, 1, 20).reshape(4, 5).requires_grad_()
batch_a = torch.linspace(-1, 1, 24).reshape(2, 3, 4).requires_grad_()
batch_b = torch.linspace(-1, 1, 40).reshape(2, 4, 5).requires_grad_()
with FlopCounterMode(display=False) as counter:
    (torch.mm(m, n).sum() + (m @ n).sum() + torch.matmul(batch_a, batch_b).sum()).backward()
print("matmul", counter.get_total_flops(), per_module(counter))

convnet = deterministic(nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(4, 3, 3, stride=2), nn.Flatten(), nn.Linear(12, 2)))
image = torch.linspace(-1, 1, 100).reshape(2, 2, 5, 5)
with FlopCounterMode(display=False) as forward:
    out = convnet(image).sum()
print("conv forward", forward.get_total_flops(), per_module(forward))
with FlopCounterMode(display=False) as backward:
    out.backward()
print("conv backward", backward.get_total_flops(), module_totals(backward))
with FlopCounterMode(display=False) as both:
    convnet(image.requires_grad_()).sum().backward()
print("conv both, input requiring grad", both.get_total_flops(), module_totals(both))
