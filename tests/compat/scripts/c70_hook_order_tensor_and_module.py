# Which fires first: module backward hooks or tensor hooks on the module's output?
import torch
import torch.nn as nn

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.eye(2))
    lin.bias.zero_()
order = []
lin.register_full_backward_pre_hook(lambda m, go: order.append("module pre"))
lin.register_full_backward_hook(lambda m, gi, go: order.append("module full"))
lin.weight.register_hook(lambda g: order.append("weight hook"))
lin.weight.register_post_accumulate_grad_hook(lambda p: order.append("weight accumulated"))
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
x.register_hook(lambda g: order.append("input hook"))
y = lin(x)
y.register_hook(lambda g: order.append("output hook"))
y.sum().backward()
for i, event in enumerate(order):
    print(i, event)
