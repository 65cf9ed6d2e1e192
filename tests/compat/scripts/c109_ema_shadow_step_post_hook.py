# https://github.com/DealLateNoDoubt/Diffusion_UNetImprove
# the EMA helper (utils/ema.py): shadow copies updated after each step, swapped in for evaluation and
# restored; here updated by a step post-hook.
import torch
import torch.nn as nn


class EMA(object):
    def __init__(self, model, decay):
        self.model = model
        self.decay = decay
        self.shadow = {}
        self.backup = {}

    def Register(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.shadow[name] = param.data.clone()

    def Update(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                assert name in self.shadow
                new_average = (1.0 - self.decay) * param.data + self.decay * self.shadow[name]
                self.shadow[name] = new_average.clone()

    def Apply_shadow(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                self.backup[name] = param.data
                param.data = self.shadow[name]

    def Restore(self):
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                param.data = self.backup[name]
        self.backup = {}


model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, -1.0]]))
    model.bias.zero_()
ema = EMA(model, 0.5)
ema.Register()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
opt.register_step_post_hook(lambda optimizer, args, kwargs: ema.Update())
x = torch.tensor([[1.0, 2.0], [2.0, 1.0]])
y = torch.tensor([[1.0], [2.0]])
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
print("live:", model.weight.data, model.bias.data)
print("shadow:", ema.shadow)
ema.Apply_shadow()
print("eval with EMA weights:", model(x))
ema.Restore()
print("restored:", model.weight)
