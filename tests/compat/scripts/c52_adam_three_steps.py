# optim.Adam with weight decay for three steps, printing parameters and state.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.2, -0.4, 0.6]]))
    model.bias.fill_(0.1)
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-4)
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]])
y = torch.tensor([[1.0], [-1.0]])
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step + 1}: loss = {loss.item():.6f}")
print(model.weight.data, model.bias.data)
state = opt.state[model.weight]
print(sorted(state.keys()))
print(state["step"])
print(state["exp_avg"])
