# https://PyTorch.org/tutorials/recipes/recipes/saving_and_loading_a_general_checkpoint.html
# save model and optimizer state_dicts with the epoch and loss, load them into fresh objects and resume.
import os
import tempfile

import torch
import torch.nn as nn
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def build():
    net = Net()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape))
    return net, optim.SGD(net.parameters(), lr=0.001, momentum=0.9)


x = torch.arange(6.0).reshape(2, 3)
net, optimizer = build()
for epoch in range(2):
    optimizer.zero_grad()
    loss = net(x).pow(2).mean()
    loss.backward()
    optimizer.step()

with tempfile.TemporaryDirectory() as d:
    PATH = os.path.join(d, "model.pt")
    torch.save({
        'epoch': epoch,
        'model_state_dict': net.state_dict(),
        'optimizer_state_dict': optimizer.state_dict(),
        'loss': loss,
    }, PATH)
    model, optimizer2 = build()
    checkpoint = torch.load(PATH, weights_only=True)
    model.load_state_dict(checkpoint['model_state_dict'])
    optimizer2.load_state_dict(checkpoint['optimizer_state_dict'])
    epoch = checkpoint['epoch']
    loss = checkpoint['loss']

print(epoch, f"{loss.item():.4f}")
print(optimizer2.state_dict()["state"][0]["momentum_buffer"])
model.train()
optimizer2.zero_grad()
model(x).pow(2).mean().backward()
optimizer2.step()
print(model.fc2.weight)
