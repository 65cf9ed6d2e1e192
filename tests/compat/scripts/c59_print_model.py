# print(model), parameter counts and named parameter shapes.
import torch.nn as nn

class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.drop(self.act(layer(x)))
        return self.layers[-1](x)

model = MLP([4, 8, 8, 2])
print(model)
for name, p in model.named_parameters():
    print(f"{name:20s} {str(tuple(p.shape)):10s} {p.requires_grad}")
print(sum(p.numel() for p in model.parameters()))
print(model.layers[0])
print(model.training, model.drop.p)
print(nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.MaxPool2d(2)))
