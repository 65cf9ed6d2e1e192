# A "model summary" printed with hooks on every named submodule.
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(1, 4, 3),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(4 * 3 * 3, 10),
)
hooks = []
for name, module in model.named_modules():
    if name == "":
        continue
    def hook(mod, inp, out, name=name):
        params = sum(p.numel() for p in mod.parameters())
        print(f"{name:3s} {mod.__class__.__name__:10s} {str(list(out.shape)):16s} {params}")
    hooks.append(module.register_forward_hook(hook))
with torch.no_grad():
    model(torch.zeros(2, 1, 8, 8))
for h in hooks:
    h.remove()
total = sum(p.numel() for p in model.parameters())
print(f"Total params: {total:,}")
print(model)
