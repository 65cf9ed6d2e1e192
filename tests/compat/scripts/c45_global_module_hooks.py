# Global module hooks fire for every module, e.g. to log shapes across a whole model.
import torch
import torch.nn as nn
from torch.nn.modules.module import (register_module_forward_hook,
                                     register_module_forward_pre_hook,
                                     register_module_full_backward_hook)

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
log = []
h1 = register_module_forward_pre_hook(lambda m, i: log.append(f"pre  {type(m).__name__}"))
h2 = register_module_forward_hook(lambda m, i, o: log.append(f"fwd  {type(m).__name__} -> {tuple(o.shape)}"))
h3 = register_module_full_backward_hook(lambda m, gi, go: log.append(f"bwd  {type(m).__name__}"))
out = model(torch.ones(2, 3))
out.sum().backward()
print("\n".join(log))
for h in (h1, h2, h3):
    h.remove()
log.clear()
model(torch.ones(1, 3))
print(log)
