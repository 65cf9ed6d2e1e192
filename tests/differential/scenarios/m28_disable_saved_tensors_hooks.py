"""m28: disable_saved_tensors_hooks: the error, nesting, and restoring.

Intent: inside disable_saved_tensors_hooks(msg), entering saved_tensors_hooks
raises RuntimeError(msg); ops that save nothing still work; an op that saves
tensors works too (default saving is untouched). On exit, hooks can be used
again; nested disables restore the outer message.
"""
import torch
from torch.autograd.graph import saved_tensors_hooks, disable_saved_tensors_hooks

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


x = torch.tensor([1., 2.], requires_grad=True)

def use_hooks():
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        return x * x

with disable_saved_tensors_hooks("no saved hooks here (outer)"):
    show_err("enter saved_tensors_hooks", use_hooks)
    y = x * x
    print("plain op under disable works:", r(y))
    with disable_saved_tensors_hooks("inner message"):
        show_err("inner", use_hooks)
    show_err("outer again", use_hooks)
show_err("after exit", use_hooks)

def disable_inside_hooks():
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with disable_saved_tensors_hooks("disabled while a pair is active"):
            pass
show_err("disable while a pair is active", disable_inside_hooks)
show_err("and after that", use_hooks)

@disable_saved_tensors_hooks("decorator message")
def decorated():
    return use_hooks()
show_err("as a decorator", decorated)
y.sum().backward()
print("x.grad", r(x.grad))
