# https://android.googlesource.com/platform/external/pytorch/+/05b679ce6a/torch/optim/optimizer.pyi
# register_optimizer_step_pre_hook / post_hook: one hook for every optimizer in the process.
import torch
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

steps = {}


def count_pre(optimizer, args, kwargs):
    name = type(optimizer).__name__
    steps[name] = steps.get(name, 0) + 1


def report_post(optimizer, args, kwargs):
    values = [round(p.item(), 4) for group in optimizer.param_groups for p in group["params"]]
    print("stepped", type(optimizer).__name__, values)


pre = register_optimizer_step_pre_hook(count_pre)
post = register_optimizer_step_post_hook(report_post)

a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(-2.0, requires_grad=True)
sgd = torch.optim.SGD([a], lr=0.5)
adam = torch.optim.Adam([b], lr=0.1)
local = sgd.register_step_post_hook(lambda opt, args, kwargs: print("  local post-hook after the global one"))
for _ in range(2):
    for opt, p in ((sgd, a), (adam, b)):
        opt.zero_grad()
        (p ** 2).backward()
        opt.step()
print(steps)
pre.remove()
post.remove()
local.remove()
sgd.step()
print(steps)
