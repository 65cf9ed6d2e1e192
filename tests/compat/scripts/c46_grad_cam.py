# Grad-CAM on a tiny CNN: forward hook keeps activations, tensor hook keeps their gradient.
import torch
import torch.nn as nn
import torch.nn.functional as F

class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3, padding=1)
        self.conv2 = nn.Conv2d(2, 3, 3, padding=1)
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = x.mean(dim=(2, 3))
        return self.fc(x)

model = TinyCNN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
store = {}

def save_activation(module, inp, out):
    store["act"] = out
    out.register_hook(lambda g: store.__setitem__("grad", g))

model.conv2.register_forward_hook(save_activation)
img = torch.linspace(0, 1, 25).reshape(1, 1, 5, 5)
logits = model(img)
cls = logits.argmax(dim=1).item()
print("logits", logits, "class", cls)
logits[0, cls].backward()
weights = store["grad"].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * store["act"]).sum(dim=1)).squeeze(0)
cam = cam / (cam.max() + 1e-8)
print(weights.flatten())
print(cam)
print(tuple(store["act"].shape), tuple(store["grad"].shape))
