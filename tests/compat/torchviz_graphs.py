"""Draw a few autograd graphs with torchviz and print their dot sources as JSON.

Run as ``python torchviz_graphs.py`` (real PyTorch) or ``python -m minigrad.run
torchviz_graphs.py`` (torchviz itself then imports minigrad as ``torch``);
test_torchviz.py compares the two. Plain PyTorch code, like the corpus scripts.
"""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchviz import make_dot


def init_(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
    return model


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.fc = nn.Linear(2 * 2 * 2, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(torch.flatten(x, 1))


def graphs():
    mlp = init_(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)))
    yield "mlp", mlp(torch.ones(5, 3)).sum(), dict(mlp.named_parameters())

    cnn = init_(TinyCNN())
    out = cnn(torch.linspace(0, 1, 32).reshape(2, 1, 4, 4))
    yield "cnn", F.cross_entropy(out, torch.tensor([0, 2])), dict(cnn.named_parameters())

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    y = (torch.exp(x * w) + torch.sin(x).pow(2)).t().reshape(4)[1:] / 3
    yield "expression", y.mean() - x.sum(), {"x": x, "w": w}


if __name__ == "__main__":
    print(json.dumps({name: make_dot(out, params=params, show_attrs=True, show_saved=True).source
                      for name, out, params in graphs()}))
