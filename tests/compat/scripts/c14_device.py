# Device-agnostic code: pick cuda if there is one, else cpu.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)
print(device.type)
model = nn.Linear(2, 2).to(device)
x = torch.ones(1, 2, device=device)
print(x.device)
print(next(model.parameters()).device)
print(x.to("cpu").device, x.cpu().device)
print(torch.device("cpu") == x.device)
print(x.is_cuda)
