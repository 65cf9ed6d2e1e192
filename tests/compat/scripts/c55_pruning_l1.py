# torch.nn.utils.prune: L1 unstructured pruning adds weight_orig, weight_mask and a pre-hook.
import torch
import torch.nn as nn
import torch.nn.utils.prune as prune

layer = nn.Linear(3, 2)
with torch.no_grad():
    layer.weight.copy_(torch.tensor([[0.1, -0.5, 0.3], [0.8, -0.05, 0.2]]))
    layer.bias.zero_()
prune.l1_unstructured(layer, name="weight", amount=0.5)
print(list(dict(layer.named_parameters()).keys()))
print(list(dict(layer.named_buffers()).keys()))
print(layer.weight_mask)
print(layer.weight)
print(layer._forward_pre_hooks)
print(prune.is_pruned(layer))
x = torch.tensor([[1.0, 1.0, 1.0]])
layer(x).sum().backward()
print(layer.weight_orig.grad)
prune.remove(layer, "weight")
print(list(dict(layer.named_parameters()).keys()))
print(layer.weight)
