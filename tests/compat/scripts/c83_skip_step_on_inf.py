# Skip the optimizer step when a gradient is inf/nan (a global pre-hook, as loss scalers do).
import torch
import torch.nn as nn
from torch.optim.optimizer import register_optimizer_step_pre_hook

skipped = []

def skip_if_not_finite(optimizer, args, kwargs):
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None and not torch.isfinite(p.grad).all():
                skipped.append(type(optimizer).__name__)
                optimizer.zero_grad(set_to_none=True)  # no gradient -> the step leaves p alone
                return None
    return None

handle = register_optimizer_step_pre_hook(skip_if_not_finite)
model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -0.5]]))
    model.bias.fill_(0.1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
batches = [torch.tensor([[1.0, 2.0]]), torch.tensor([[float("inf"), 1.0]]), torch.tensor([[0.5, -1.0]])]
for i, x in enumerate(batches):
    opt.zero_grad()
    loss = model(x).pow(2).sum()
    loss.backward()
    opt.step()
    weight = [round(v, 5) for v in model.weight.flatten().tolist()]
    print(f"batch {i}: loss={loss.item():.4f} weight={weight} skipped={skipped}")
print("Adam steps taken:", opt.state[model.weight]["step"].item())
handle.remove()
