"""m07: A hook raises; afterwards the engine works again, cleanly.

Intent: an exception in a tensor hook, a node pre-hook, a pack hook and an
unpack hook aborts the operation and propagates the hook's own exception
type. Afterwards grad mode is enabled again and the saved-tensor hook stack
is empty: a new saved_tensors_hooks context sees only its own pack calls, and
a fresh forward/backward gives the right gradient.
"""
import torch
from torch.autograd.graph import saved_tensors_hooks

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


class Boom(Exception):
    pass

def boom(*args):
    raise Boom("boom from hook")

x = torch.tensor([1., 2.], requires_grad=True)
y = x * x
h = y.register_hook(boom)
show_err("tensor hook raises", lambda: y.sum().backward())
print("is_grad_enabled", torch.is_grad_enabled(), "x.grad", x.grad)
h.remove()

y = x * x
y.grad_fn.register_prehook(boom)
show_err("node pre-hook raises", lambda: y.sum().backward())
print("is_grad_enabled", torch.is_grad_enabled())

def forward_with_raising_pack():
    with saved_tensors_hooks(boom, lambda p: p):
        x * x
show_err("pack hook raises", forward_with_raising_pack)

def backward_with_raising_unpack():
    with saved_tensors_hooks(lambda t: t, boom):
        z = x * x
    z.sum().backward()
show_err("unpack hook raises", backward_with_raising_unpack)

def raise_in_no_grad():
    with torch.no_grad():
        raise Boom("inside no_grad")
show_err("exception inside no_grad", raise_in_no_grad)
print("is_grad_enabled", torch.is_grad_enabled())

packs = []
with saved_tensors_hooks(lambda t: (packs.append("outer"), t)[1], lambda p: p):
    z = x * x
print("pack calls in a fresh context:", packs)
z.sum().backward()
print("x.grad after recovery", r(x.grad))
