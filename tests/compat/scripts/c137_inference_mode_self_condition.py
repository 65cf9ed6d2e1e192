# https://github.com/lucidrains/denoising-diffusion-pytorch/issues/286
# a self-conditioning estimate made under inference_mode cannot be saved for backward; clone() or no_grad
# fixes it.
import torch
import torch.nn as nn

model = nn.Linear(3, 3)
with torch.no_grad():
    model.weight.copy_(torch.linspace(-1, 1, 9).reshape(3, 3))
    model.bias.zero_()
x = torch.tensor([[1.0, 2.0, 3.0]])

with torch.inference_mode():
    x_self_cond = model(x.clone().detach())
    x_self_cond = x_self_cond.detach_()
print(x_self_cond.is_inference(), x_self_cond.requires_grad)
try:
    loss = (model(x) * x_self_cond).sum()
    loss.backward()
    print("no error")
except RuntimeError as e:
    print("RuntimeError:", e)

loss = (model(x) * x_self_cond.clone()).sum()
loss.backward()
print(model.weight.grad)

with torch.no_grad():
    x_self_cond = model(x)
print(x_self_cond.is_inference())
model.zero_grad()
(model(x) * x_self_cond).sum().backward()
print(model.bias.grad)
