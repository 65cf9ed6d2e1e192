"""m20: retain_grad, then an in-place op on the same tensor.

Intent: retain_grad survives the in-place op (it moves to the new grad_fn) and
the retained grad is the gradient w.r.t. the tensor's FINAL value. Also:
retain_grad called twice is a no-op, retains_grad is False for leaves, and
.grad of a non-leaf without retain_grad is None (with a UserWarning we record
by category only).
"""
import torch
import warnings

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
y = x * 3
y.retain_grad()
y.retain_grad()
print("y.retains_grad", y.retains_grad, "x.retains_grad", x.retains_grad)
old_fn = y.grad_fn.name()
y.mul_(2)
print("grad_fn", old_fn, "->", y.grad_fn.name(), "retains_grad", y.retains_grad)
y.register_hook(lambda g: print("hook y", r(g)))
(y * y).sum().backward()
print("y.grad (w.r.t. final y = 6x)", r(y.grad), "x.grad", r(x.grad))

a = x * 1
b = a + 1
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    g = b.grad
print("non-retained non-leaf .grad", g, "warnings:", [w.category.__name__ for w in ws])

c = x * 1
c.retain_grad()
c.add_(5)
c.retain_grad()
(c * 2).sum().backward()
print("retain_grad before and after add_: c.grad", r(c.grad))
