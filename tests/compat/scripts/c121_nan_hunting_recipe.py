# https://llmbook.apartsin.com/appendices/appendix-e-pytorch-reference/section-e.9.html
# hunting NaN: assert finiteness of loss and grads, forward hooks that flag the first non-finite layer, then
# detect_anomaly for backward.
import torch
import torch.nn as nn


class Root(nn.Module):
    def forward(self, x):
        return x.sqrt()


model = nn.Sequential(nn.Linear(2, 2), Root(), nn.Linear(2, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[1.0, 0.0], [0.0, -1.0]]))
    model[0].bias.zero_()
    model[2].weight.fill_(1.0)
    model[2].bias.zero_()

first_bad = []


def check_finite(name):
    def hook(module, inputs, output):
        if not torch.isfinite(output).all() and not first_bad:
            first_bad.append(name)
    return hook


for name, module in model.named_children():
    module.register_forward_hook(check_finite(name))

x = torch.tensor([[1.0, 2.0]])
loss = model(x).sum()
print("loss finite:", torch.isfinite(loss).all().item(), "first bad layer:", first_bad)

x = torch.tensor([[4.0, 0.0]])
first_bad.clear()
loss = model(x).sum()
print("loss:", loss.item(), "first bad layer:", first_bad)
with torch.autograd.detect_anomaly():
    loss = model(x).sum()
    try:
        loss.backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None))
print([p.grad for p in model.parameters()])
