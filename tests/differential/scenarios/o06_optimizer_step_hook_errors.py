"""o06: an optimizer step that fails, and the step hooks around it.

Intent (issue 31 §2): a step pre-hook that returns ``((), {})`` leaves the step no
optimizer to read: PyTorch's optimizers read it as ``args[0]`` (the decorator of their
``step``), so the step raises ``IndexError: tuple index out of range``, while a
subclass whose own ``step`` has no such decorator gets Python's missing-argument
TypeError. A step that raises (a pre-hook hands it a closure that is no function, or the
closure raises) runs no post-hook, neither the optimizer's own nor the global ones, and
the parameters keep their values; the next step runs every hook again.
"""
import torch
import torch.nn as nn
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


w = nn.Parameter(torch.tensor([1.0, -2.0]))
w.grad = torch.tensor([0.5, 0.5])
log = []
handles = [
    register_optimizer_step_pre_hook(lambda opt, args, kwargs: log.append("global pre")),
    register_optimizer_step_post_hook(lambda opt, args, kwargs: log.append("global post")),
]


def run(label, opt, *args, **kwargs):
    log.clear()
    show_err(label, lambda: opt.step(*args, **kwargs))
    print("  hooks that ran:", log, "| w:", [round(v, 4) for v in w.tolist()])


for make in (lambda: torch.optim.SGD([w], lr=0.1), lambda: torch.optim.Adam([w], lr=0.1)):
    opt = make()
    name = type(opt).__name__
    opt.register_step_post_hook(lambda opt, args, kwargs: log.append("own post"))
    emptied = opt.register_step_pre_hook(lambda opt, args, kwargs: ((), {}))
    run(f"{name}: a pre-hook returns ((), {{}})", opt)
    emptied.remove()
    bad = opt.register_step_pre_hook(lambda opt, args, kwargs: ((opt, 5), {}))
    run(f"{name}: a pre-hook passes closure=5", opt)
    bad.remove()

    def closure():
        raise ValueError("the closure failed")

    run(f"{name}: the closure raises", opt, closure)
    run(f"{name}: the next step", opt)


class Plain(torch.optim.Optimizer):
    def __init__(self, params):
        super().__init__(params, {"lr": 0.1})

    def step(self, closure=None):
        log.append("Plain.step")


plain = Plain([w])
plain.register_step_pre_hook(lambda opt, args, kwargs: ((), {}))
run("a subclass's own step, a pre-hook returns ((), {})", plain)
for handle in handles:
    handle.remove()
