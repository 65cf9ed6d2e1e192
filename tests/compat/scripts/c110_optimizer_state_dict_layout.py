# https://docs.pytorch.org/docs/2.6/generated/torch.optim.Optimizer.state_dict.html
# what an optimizer's state_dict looks like: per-parameter state keyed by index, and param_groups with their
# hyperparameters.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
opt = torch.optim.SGD([
    {"params": model[0].parameters(), "lr": 0.01},
    {"params": model[1].parameters(), "lr": 0.001, "weight_decay": 0.5},
], momentum=0.9)
print(opt.state_dict())
model(torch.tensor([[1.0, 2.0]])).sum().backward()
opt.step()
sd = opt.state_dict()
print(sorted(sd))
print(sd["state"])
for group in sd["param_groups"]:
    print(group["params"], group["lr"], group["weight_decay"], group["momentum"])

adam = torch.optim.Adam(model.parameters(), lr=0.1)
adam.step()
state = adam.state_dict()["state"]
print(sorted(state), sorted(state[0]))
print(state[1]["step"], state[1]["exp_avg"], state[1]["exp_avg_sq"])
print(adam.state_dict()["param_groups"][0]["betas"])
