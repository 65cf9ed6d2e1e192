"""m39: nn.utils.prune's forward pre-hook next to a user's own module hooks.

Intent: pruning is a forward pre-hook (the pruning method object itself sits in
module._forward_pre_hooks) that recomputes ``weight = weight_mask * weight_orig``
before each forward. Traps: a user pre-hook registered *before* pruning runs
first and still sees the previous ``weight``; one registered with prepend=True
always runs first; pruning the same parameter again takes the old hook off and
registers a PruningContainer at the *end* of the dict (so it now runs after user
pre-hooks registered in between); gradients reach ``weight_orig`` through the
mask (zero where pruned); prune.remove leaves the user hooks alone.
"""
import torch
import torch.nn as nn
import torch.nn.utils.prune as prune

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

def hook_kinds(m):
    return [type(h).__name__ if isinstance(h, prune.BasePruningMethod) else h.__name__
            for h in m._forward_pre_hooks.values()]

lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.5, -0.1, 2.0], [-1.5, 0.3, 0.05]]))
    lin.bias.copy_(torch.tensor([0.1, -0.2]))

def user_pre(m, args):
    print("  user_pre: weight =", r(m.weight), "| pruned yet:", hasattr(m, "weight_orig"))
    return (args[0] * 2,)             # replaces the input

def user_first(m, args):
    print("  user_first (prepend=True)")

def user_late(m, args):
    print("  user_late: weight =", r(m.weight))

def user_post(m, args, out):
    print("  user_post: input =", r(args[0]), "output =", r(out))
    m.weight.register_hook(lambda g: print("  grad of the pruned weight:", r(g)))

lin.register_forward_pre_hook(user_pre)
lin.register_forward_hook(user_post)
x = torch.tensor([[1.0, 2.0, 3.0]])

print("before pruning:")
lin(x)
method = prune.L1Unstructured.apply(lin, "weight", amount=2)   # what l1_unstructured does
print("after L1Unstructured.apply(amount=2):", hook_kinds(lin), "| the hook is the method:",
      list(lin._forward_pre_hooks.values())[-1] is method, "| callable:", callable(method))
print("params", [n for n, _ in lin.named_parameters()], "buffers", [n for n, _ in lin.named_buffers()])
print("mask", r(lin.weight_mask), "| weight is a Parameter:", isinstance(lin.weight, nn.Parameter),
      "| grad_fn:", lin.weight.grad_fn.name())
with torch.no_grad():
    lin.weight_orig.add_(1.0)          # the pre-hook picks this up at the next call
print("call:")
out = lin(x)
print("backward:")
out.sum().backward()
print("weight_orig.grad", r(lin.weight_orig.grad), "bias.grad", r(lin.bias.grad))

lin.register_forward_pre_hook(user_late)
lin.register_forward_pre_hook(user_first, prepend=True)
print("hooks:", hook_kinds(lin))
prune.l1_unstructured(lin, "weight", amount=0.5)      # 0.5 of the 4 left
print("pruned again:", hook_kinds(lin))
container = lin._forward_pre_hooks[list(lin._forward_pre_hooks)[-1]]
print("container:", [type(m).__name__ for m in container], "first is the old method:", container[0] is method)
print("mask", r(lin.weight_mask))
print("call:")
lin(x)

prune.remove(lin, "weight")
print("after remove:", hook_kinds(lin), [n for n, _ in lin.named_parameters()], r(lin.weight))
show_err("remove twice", lambda: prune.remove(lin, "weight"))
print("call:")
lin.zero_grad()
lin(x).sum().backward()
print("weight.grad", r(lin.weight.grad))
