"""a06: torch.autograd.functional.jacobian(vectorize=True) (and hessian's).

Intent: vectorize=True computes every row of the Jacobian in one autograd.grad call with
is_grads_batched=True (PyTorch: one vmapped pass; minigrad: one pass per row). The result
must equal the row-by-row one, for tuple inputs and outputs, an output independent of an
input (zeros), a constant output, and under create_graph; strict=True is refused.
"""
import torch
from torch.autograd.functional import hessian, jacobian


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def r(t, n=4):
    if isinstance(t, tuple):
        return tuple(r(x, n) for x in t)
    v = t.tolist() if hasattr(t, "tolist") else t

    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


def info(t):
    if isinstance(t, tuple):
        return tuple(info(x) for x in t)
    return (tuple(t.shape), t.requires_grad, t.grad_fn is not None)


def f(x):
    return x ** 2 * torch.tensor([1.0, 2.0, 3.0]) + x.sin()


def two(a, b):
    return a * b + a.exp(), (a - b).sum()


def scalar(a):
    return (a ** 3).sum() + (a[0] * a[1])


def scalar2(a, b):
    return (a * a * b).sum()


x = torch.tensor([0.5, -1.0, 2.0])
y = torch.tensor([1.5, 0.25, -0.5])
v3 = torch.tensor([1.0, -2.0, 0.5])

print("== jacobian(vectorize=True)")
for args in [(f, x), (two, (x, y)), (lambda a, b: a * 2, (x, y)), (lambda a: torch.ones(2), x)]:
    slow = jacobian(*args)
    fast = jacobian(*args, vectorize=True)
    print(r(fast), info(fast), r(slow) == r(fast))
jc = jacobian(f, x.clone().requires_grad_(), create_graph=True, vectorize=True)
print("create_graph", info(jc))
print("hessian vectorized", r(hessian(scalar, x, vectorize=True)),
      r(hessian(scalar2, (x, y), vectorize=True)))
show_err("strict and vectorize", lambda: jacobian(f, x, strict=True, vectorize=True))
show_err("bad strategy", lambda: jacobian(f, x, strategy="sideways"))
show_err("forward-mode create_graph", lambda: jacobian(f, x, create_graph=True, strategy="forward-mode"))
