# https://docs.pytorch.org/docs/stable/generated/torch.optim.Optimizer.register_step_pre_hook.html
# step pre/post hooks get (optimizer, args, kwargs), args starting with the optimizer; a pre-hook may return
# new args and kwargs.
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -0.5]]))
    model.bias.fill_(0.1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
log = []


def pre_hook(optimizer, args, kwargs):
    log.append(("pre", type(optimizer).__name__, len(args), sorted(kwargs)))


def post_hook(optimizer, args, kwargs):
    log.append(("post", optimizer.param_groups[0]["lr"]))


h1 = opt.register_step_pre_hook(pre_hook)
h2 = opt.register_step_post_hook(post_hook)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([[1.0], [0.0]])


def closure():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for step in range(2):
    loss = opt.step(closure)
    print(step, round(loss.item(), 4), model.weight.data)
print(log)
h1.remove()
h2.remove()
opt.step(closure)
print(len(log))


def replace_closure(optimizer, args, kwargs):
    print("pre-hook sees", len(args), args[0] is optimizer, kwargs)
    return (optimizer,), {"closure": closure}


opt.register_step_pre_hook(replace_closure)
print(round(opt.step().item(), 4))
