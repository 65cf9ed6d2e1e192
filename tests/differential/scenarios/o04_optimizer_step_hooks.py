"""o04: optimizer step hooks, global and per optimizer, around every step().

Intent: Optimizer wraps its class's step once (profile_hook_step; the wrapped
function is marked `hooked`), so step(*args, **kwargs) runs the global pre-hooks,
then the optimizer's own, the step, then the optimizer's own post-hooks, then the
global ones (post: own first). Every hook gets (optimizer, args, kwargs) where args
starts with the optimizer itself. Traps: a pre-hook's (new_args, new_kwargs)
replaces what step receives (a closure can be swapped in) and what the later hooks
see; any other return value raises RuntimeError naming the step function; a hook
that raises stops that step but leaves the optimizer usable; a subclass that
overrides step and calls super().step() runs the hooks twice when the parent's step
was already wrapped by an earlier instance of the parent class (PyTorch's quirk);
a hook that empties the gradients makes the step a no-op.
"""
import re

import torch
import torch.nn as nn
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", re.sub(r"0x[0-9a-f]+", "0x...", str(e)))

def r(t, n=4):
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

w = nn.Parameter(torch.tensor([1.0, -2.0]))
opt = torch.optim.SGD([w], lr=0.1)

def describe(args, kwargs):
    return (f"args=({type(args[0]).__name__}{', ' + type(args[1]).__name__ if len(args) > 1 else ''}) "
            f"kwargs={sorted(kwargs)} self is args[0]: {args[0] is opt}")

def log(label):
    def hook(optimizer, args, kwargs):
        print(f"  {label}: {describe(args, kwargs)}")
    return hook

def grads():
    opt.zero_grad()
    (w * w).sum().backward()

hs = [register_optimizer_step_pre_hook(log("global pre 1")),
      register_optimizer_step_post_hook(log("global post 1")),
      opt.register_step_pre_hook(log("own pre 1")),
      opt.register_step_post_hook(log("own post 1")),
      register_optimizer_step_pre_hook(log("global pre 2")),
      opt.register_step_pre_hook(log("own pre 2")),
      opt.register_step_post_hook(log("own post 2")),
      register_optimizer_step_post_hook(log("global post 2"))]
print("wrapped once:", type(opt).step.hooked, type(opt).step.__name__,
      "| a second optimizer does not wrap again:",
      torch.optim.SGD([nn.Parameter(torch.ones(1))]).__class__.step is torch.optim.SGD.step)
print("step():")
grads()
print("returned:", opt.step(), "| w =", r(w))
print("step(closure=...):")
def closure():
    print("  closure runs")
    grads()
    return torch.tensor(1.5)
print("returned:", r(opt.step(closure=closure)), "| w =", r(w))
for h in hs:
    h.remove()

print("a pre-hook swaps the closure:")
def swap(optimizer, args, kwargs):
    print("  swap sees", describe(args, kwargs))
    return (args[0],), {"closure": lambda: (grads(), torch.tensor(7.0))[1]}
h1 = opt.register_step_pre_hook(swap)
h2 = opt.register_step_post_hook(lambda o, a, k: print("  post sees", describe(a, k)))
print("returned:", r(opt.step()), "| w =", r(w))
h1.remove()
h2.remove()

print("bad return values:")
h = opt.register_step_pre_hook(lambda o, a, k: "oops")
show_err("  string", opt.step)
h.remove()
h = opt.register_step_pre_hook(lambda o, a, k: (a, k, None))
show_err("  3-tuple", opt.step)
h.remove()

print("a hook that raises, then a normal step:")
def boom(o, a, k):
    raise ValueError("stop here")
h = opt.register_step_pre_hook(boom)
grads()
before = r(w)
show_err("  step", opt.step)
print("  w unchanged:", r(w) == before)
h.remove()
opt.step()
print("  after removing it, w =", r(w))

print("skip a step when a gradient is not finite:")
def skip_nonfinite(optimizer, args, kwargs):
    bad = any(not torch.isfinite(p.grad).all() for g in optimizer.param_groups for p in g["params"]
              if p.grad is not None)
    print("  nonfinite:", bad)
    if bad:
        optimizer.zero_grad(set_to_none=True)
h = register_optimizer_step_pre_hook(skip_nonfinite)
w.grad = torch.tensor([float("inf"), 1.0])
opt.step()
print("  w =", r(w))
w.grad = torch.tensor([1.0, 1.0])
opt.step()
print("  w =", r(w))
h.remove()

print("a subclass that calls super().step():")
class Logged(torch.optim.SGD):
    def step(self, closure=None):
        print("  Logged.step")
        return super().step(closure)
lo = Logged([w], lr=0.1)
h = lo.register_step_pre_hook(lambda o, a, k: print("  pre-hook of", type(o).__name__))
grads()
lo.step()
print("  Logged.step is hooked:", Logged.step.hooked, "| SGD.step is hooked:", torch.optim.SGD.step.hooked)
h.remove()

print("Adam, with a post-hook keeping an exponential moving average of the weights:")
v = nn.Parameter(torch.tensor([0.5, -0.5]))
adam = torch.optim.Adam([v], lr=0.1)
ema = v.detach().clone()
def update_ema(optimizer, args, kwargs):
    with torch.no_grad():
        for p in optimizer.param_groups[0]["params"]:
            ema.mul_(0.5).add_(p, alpha=0.5)
adam.register_step_post_hook(update_ema)
for i in range(3):
    adam.zero_grad()
    ((v - 2) ** 2).sum().backward()
    adam.step()
    print(f"  step {i}: v={r(v)} ema={r(ema)}")
