# https://pytorch.org/docs/1.9.1/_modules/torch/nn/utils/parametrize.html
# parametrize.cached(): compute the parametrized weight once per forward; parametrizations chain in
# registration order.
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P

calls = []


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, X):
        calls.append(self.factor)
        return X * self.factor


layer = nn.Linear(2, 2, bias=False)
with torch.no_grad():
    layer.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
P.register_parametrization(layer, "weight", Scale(2.0))
P.register_parametrization(layer, "weight", Scale(10.0))
print(layer.weight)
print(calls)
calls.clear()

x = torch.ones(1, 2)
out = layer(x) + layer(x)
print(out, calls)
calls.clear()
with P.cached():
    out = layer(x) + layer(x)
print(out, calls)

P.remove_parametrizations(layer, "weight", leave_parametrized=True)
print(layer.weight, P.is_parametrized(layer))
