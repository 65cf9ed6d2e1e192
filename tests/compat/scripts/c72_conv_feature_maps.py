# Grab conv feature maps with forward hooks and summarise them per channel.
import torch
import torch.nn as nn
import torch.nn.functional as F

conv1 = nn.Conv2d(1, 2, kernel_size=3, padding=1)
conv2 = nn.Conv2d(2, 2, kernel_size=3, stride=2)
with torch.no_grad():
    for p in list(conv1.parameters()) + list(conv2.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
features = {}
conv1.register_forward_hook(lambda m, i, o: features.__setitem__("conv1", o))
conv2.register_forward_hook(lambda m, i, o: features.__setitem__("conv2", o))
img = torch.arange(36, dtype=torch.float32).reshape(1, 1, 6, 6) / 36
out = conv2(F.relu(conv1(img)))
for name, fmap in features.items():
    print(f"{name}: shape {tuple(fmap.shape)} mean per channel {fmap.mean(dim=(0, 2, 3))}")
print(features["conv2"][0, 1])
out.sum().backward()
print(conv1.weight.grad.shape, conv1.bias.grad)
