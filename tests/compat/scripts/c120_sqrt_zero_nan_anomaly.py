# https://e-com-net.com/article/1610540118618177536.htm
# "Function 'SqrtBackward0' returned nan values": abs(0) backpropagates, sqrt at 0 makes the gradient NaN, and
# anomaly mode turns the NaN into an error.
import torch
import torch.nn as nn

x = torch.ones(1, 1, requires_grad=True)
y = torch.zeros(1, 1)
criterion = nn.MSELoss()
loss = torch.sqrt(criterion(x * 0, y))
loss.backward()
print(x.grad)

torch.autograd.set_detect_anomaly(True)
x = torch.ones(1, requires_grad=True)
loss = torch.abs(x * 0)  # abs at 0 backpropagates fine
loss.backward()
print(x.grad)

x = torch.ones(1, requires_grad=True)
loss = torch.sqrt(torch.abs(x * 0))
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
print(x.grad)
torch.autograd.set_detect_anomaly(False)
