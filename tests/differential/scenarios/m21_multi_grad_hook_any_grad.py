"""m21: register_multi_grad_hook(mode="any") with autograd.grad and backward.

Intent: in "any" mode the hook fires once per pass, with the FIRST gradient
computed among the tensors, even when several of them get gradients. Under
autograd.grad only the tensors actually on the path count. The handle
removes the hook.
"""
import torch
from torch.autograd.graph import register_multi_grad_hook

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


a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
c = a * 2
d = b * 3

def any_hook(g):
    print("  any-hook got", r(g))

h = register_multi_grad_hook((c, d), any_hook, mode="any")
print("type of handle:", type(h).__name__)
out = (c * d).sum()
print("backward:")
out.backward(retain_graph=True)
print("autograd.grad wrt a:")
ga, = torch.autograd.grad(out, a, retain_graph=True)
print("  ->", r(ga))
print("autograd.grad wrt (b, a):")
gb, ga = torch.autograd.grad(out, (b, a), retain_graph=True)
print("  ->", r(gb), r(ga))
print("only d used:")
torch.autograd.grad(d.sum(), b, retain_graph=True)
h.remove()
print("after remove:")
out.backward()
print("a.grad", r(a.grad), "b.grad", r(b.grad))
