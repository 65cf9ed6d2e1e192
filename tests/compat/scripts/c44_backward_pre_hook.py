# register_full_backward_pre_hook sees grad_output before the module's backward and can scale it.
import torch
import torch.nn as nn

layer = nn.Linear(2, 2)
with torch.no_grad():
    layer.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    layer.bias.zero_()

def pre(module, grad_output):
    print("grad_output:", grad_output)
    return (grad_output[0] * 0.5,)

layer.register_full_backward_pre_hook(pre)
x = torch.tensor([[1.0, 1.0]], requires_grad=True)
layer(x).sum().backward()
print(x.grad)
print(layer.weight.grad)
print(layer._backward_pre_hooks)
