# https://e-com-net.com/article/1610541398946250752.htm
# "MulBackward0 returned nan": out ** (1/4) at 0; find the parameters whose gradient is NaN after backward.
import warnings

import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, -1.0]]))
    model.bias.zero_()
input = torch.tensor([[1.0, 1.0], [2.0, 1.0]])
y = torch.tensor([[0.0], [1.0]])

out = model(input)
pred = out ** (1 / 4)
loss = 2 * nn.MSELoss()(pred, y) + 0.1 * nn.L1Loss()(pred, y)
print(pred)
loss.backward()
for name, param in model.named_parameters():
    if param.grad is not None and torch.isnan(param.grad).any():
        print("nan gradient found")
        print("name:", name)
        print("param:", param.grad)

model.zero_grad()
with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
    warnings.simplefilter("always")
    pred = model(input) ** (1 / 4)
    loss = nn.MSELoss()(pred, y)
    try:
        loss.backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
for w in caught:
    if issubclass(w.category, UserWarning):
        print(w.category.__name__, str(w.message).splitlines()[0])
