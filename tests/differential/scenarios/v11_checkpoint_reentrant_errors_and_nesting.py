"""v11: checkpoint(use_reentrant=True): warnings, errors and nesting.

Intent: PyTorch's messages, recorded here so the trace compares them: leaving out
use_reentrant warns (and means True); no input requiring grad warns "Gradients
will be None" and the output has no grad_fn; keyword arguments are refused; a
reentrant checkpoint cannot serve autograd.grad or backward(inputs=...) (its
backward checks _is_checkpoint_valid); a reentrant checkpoint nested in another
runs a backward inside a backward inside a backward; a non-tensor output is
passed through; several outputs get their gradients, an output without one
gets zeros (materialized grads).
"""
import warnings
import torch
from torch.utils.checkpoint import checkpoint

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

def names(node, depth=3):
    """node name with its next_functions, `depth` levels down."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return [node.name(), [names(n, depth - 1) for n, _ in node.next_functions]]


def caught(label, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        out = fn()
    print(label, "warnings:", [str(w.message) for w in ws])
    return out

x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = caught("use_reentrant left out", lambda: checkpoint(lambda t: t.sin(), x))
print("  node", y.grad_fn.name())
y = caught("no input requires grad", lambda: checkpoint(lambda t: t.sin(), x.detach(), use_reentrant=True))
print("  requires_grad", y.requires_grad, "grad_fn", y.grad_fn)
show_err("keyword argument", lambda: checkpoint(lambda t, k=1: t * k, x, use_reentrant=True, k=2))
y = checkpoint(lambda t: t.exp(), x, use_reentrant=True)
show_err("autograd.grad", lambda: torch.autograd.grad(y.sum(), x))
y = checkpoint(lambda t: t.exp(), x, use_reentrant=True)
show_err("backward(inputs=[x])", lambda: y.sum().backward(inputs=[x]))
print("x.grad after the refused passes", x.grad)

def inner(t):
    return (t * t).tanh()

def outer(t):
    u = t.exp()
    if u.requires_grad:
        u.register_hook(lambda g: print("  hook on u (middle pass)", r(g)))
    return checkpoint(inner, u, use_reentrant=True) * 2

x.grad = None
y = checkpoint(outer, x, use_reentrant=True)
print("nested:", names(y.grad_fn, 2))
y.sum().backward()
print("  x.grad", r(x.grad))
x.grad = None
((x.exp() * x.exp()).tanh() * 2).sum().backward()
print("  without checkpoint", r(x.grad))

def two(t, n):
    return t * n, n, (t * t).sum()

x.grad = None
a, n, s = checkpoint(two, x, 3, use_reentrant=True)
print("outputs", r(a), n, r(s), a.grad_fn.name(), s.grad_fn is a.grad_fn, s._version)
a.sum().backward()
print("  only a used: x.grad", r(x.grad))
