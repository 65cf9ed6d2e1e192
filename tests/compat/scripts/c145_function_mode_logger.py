# Log the torch functions a model calls with a TorchFunctionMode (torch.overrides), as
# the "which functional ops does my model call" recipes do.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode


class FunctionLogger(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return torch.log_softmax(self.fc2(h) * 2, dim=1)


net = Net()
x = torch.ones(2, 4)
with FunctionLogger() as logger:
    out = net(x)
    loss = -out[:, 0].mean()
    loss.backward()
print(logger.names)
print("fc1 weight grad is set:", net.fc1.weight.grad is not None)
