# Log every submodule and buffer as a model is built, with the global registration hooks.
import torch
import torch.nn as nn
from torch.nn.modules.module import (register_module_buffer_registration_hook,
                                     register_module_module_registration_hook)

log = []
h1 = register_module_module_registration_hook(
    lambda module, name, sub: log.append(f"{type(module).__name__} adds {name}: {type(sub).__name__}"))
h2 = register_module_buffer_registration_hook(
    lambda module, name, buf: log.append(f"{type(module).__name__} buffer {name}: "
                                         f"{None if buf is None else buf.dtype}"))

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm2d(2)
        self.act = nn.ReLU()
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

model = nn.Sequential(Block(), nn.Flatten())
model.add_module("head", nn.Linear(2, 1))
for line in log:
    print(line)
h1.remove()
h2.remove()
model.extra = nn.Identity()
print(len(log), list(dict(model.named_children())))
