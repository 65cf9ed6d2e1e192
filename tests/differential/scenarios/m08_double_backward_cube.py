"""m08: create_graph double (and triple) backward of x**3.

Intent: dy/dx = 3x^2 computed with create_graph=True has a grad_fn and can be
differentiated again: 6x, then 6. Hooks fire in the second pass too, and
x.grad accumulates across backward() calls when create_graph is used.
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

x = torch.tensor([1., 2., -1.], requires_grad=True)
y = x ** 3
g1, = torch.autograd.grad(y.sum(), x, create_graph=True)
print("g1", r(g1), "requires_grad", g1.requires_grad, "grad_fn", g1.grad_fn.name())
g1.register_hook(lambda g: print("  hook on g1 during 2nd-order pass", r(g)))
g2, = torch.autograd.grad(g1.sum(), x, create_graph=True)
print("g2", r(g2), "grad_fn", g2.grad_fn.name())
g3, = torch.autograd.grad(g2.sum(), x)
print("g3", r(g3), "requires_grad", g3.requires_grad)

x2 = torch.tensor([2.], requires_grad=True)
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    (x2 ** 3).backward(create_graph=True)
for wi in ws:
    print("warning", wi.category.__name__ + ":", str(wi.message).split(". ")[0])
print("x2.grad", r(x2.grad), "grad_fn", None if x2.grad.grad_fn is None else x2.grad.grad_fn.name())
gg = x2.grad
x2.grad = None
gg.backward()
print("x2.grad after backward of the first grad", r(x2.grad))
