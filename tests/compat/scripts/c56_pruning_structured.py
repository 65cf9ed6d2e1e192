# Structured pruning of conv filters by their L2 norm, and global pruning across layers.
import torch
import torch.nn as nn
import torch.nn.utils.prune as prune

conv = nn.Conv2d(1, 3, 2)
with torch.no_grad():
    conv.weight.copy_(
        torch.tensor([1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1, 2.0, -2.0, 0.0, 0.0]).reshape(3, 1, 2, 2))
prune.ln_structured(conv, name="weight", amount=1, n=2, dim=0)
print(conv.weight_mask.flatten())
print(conv.weight.sum(dim=(1, 2, 3)))

a, b = nn.Linear(2, 2), nn.Linear(2, 2)
with torch.no_grad():
    a.weight.copy_(torch.tensor([[0.1, 0.9], [0.5, -0.3]]))
    b.weight.copy_(torch.tensor([[-0.2, 0.4], [0.05, 1.0]]))
prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=0.5)
print(a.weight)
print(b.weight)
sparsity = (100.0 * float(torch.sum(a.weight == 0) + torch.sum(b.weight == 0))
            / float(a.weight.nelement() + b.weight.nelement()))
print(f"Global sparsity: {sparsity:.2f}%")
