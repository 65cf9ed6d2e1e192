# Feature extraction: collect intermediate activations in a dict with forward hooks.
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))

model = Net()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
activation = {}

def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook

model.fc1.register_forward_hook(get_activation("fc1"))
model.act.register_forward_hook(get_activation("act"))
x = torch.arange(8, dtype=torch.float32).reshape(2, 4) / 8
output = model(x)
for name, act in activation.items():
    print(name, act)
print(output)
print(activation["act"].requires_grad)
