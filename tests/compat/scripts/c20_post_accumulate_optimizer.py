# Fuse the optimizer step into backward with post-accumulate-grad hooks.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3]]))
    model.bias.fill_(0.0)
lr = 0.1

def step_in_backward(p):
    with torch.no_grad():
        p.add_(p.grad, alpha=-lr)
    p.grad = None

for p in model.parameters():
    p.register_post_accumulate_grad_hook(step_in_backward)

x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])
y = torch.tensor([[1.0], [0.0]])
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    print(f"step {step}: loss={loss.item():.4f} weight={model.weight.data} grad={model.weight.grad}")
