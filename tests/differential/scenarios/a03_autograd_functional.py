"""a03: torch.autograd.functional: vjp, jvp, vhp, hvp, and jacobian/hessian with strict=True.

Intent: jvp and hvp are computed by the double-backward trick (a reverse pass over a
dummy gradient), so their values, tuple handling, create_graph results (graph or not) and
strict-mode errors must match PyTorch's, which uses the same trick; so must the backward
passes themselves, node by node (tests/test_trace.py records them). Each error message of
the argument checks is compared too. jacobian(vectorize=True) is a06.
"""
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


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

print("== vjp")
out, res = vjp(f, x, v3)
print(r(out), r(res), info(res))
out, res = vjp(two, (x, y), (v3, torch.tensor(2.0)))
print(r(out), r(res), info(res))
print("scalar, v None", r(vjp(scalar, x)))
print("independent input", r(vjp(lambda a, b: a * 2, (x, y), v3)))
print("create_graph", info(vjp(f, x.clone().requires_grad_(), v3, create_graph=True)))
show_err("v missing", lambda: vjp(f, x))
show_err("v wrong size", lambda: vjp(f, x, torch.ones(2)))
show_err("v wrong count", lambda: vjp(two, (x, y), (v3,)))
show_err("v entry size", lambda: vjp(two, (x, y), (v3, torch.ones(2))))
show_err("v for single", lambda: vjp(f, x, (v3, v3)))
show_err("strict independent", lambda: vjp(lambda a, b: a * 2, (x, y), v3, strict=True))
show_err("strict no grad output", lambda: vjp(lambda a: torch.ones(3), x, v3, strict=True))
show_err("bad input", lambda: vjp(f, [1.0, 2.0], v3))
show_err("bad output", lambda: vjp(lambda a: (a, 1.0), x))

print("== jvp")
out, res = jvp(f, x, v3)
print(r(out), r(res), info(res))
out, res = jvp(two, (x, y), (v3, y))
print(r(out), r(res), info(res))
print("scalar input, v None", r(jvp(lambda a: a * torch.tensor([1.0, 2.0]), torch.tensor(3.0))))
print("constant output", r(jvp(lambda a: torch.ones(2), x, v3)))
print("create_graph", info(jvp(f, x.clone().requires_grad_(), v3, create_graph=True)))
show_err("v missing", lambda: jvp(f, x))
show_err("v wrong size", lambda: jvp(f, x, torch.ones(4)))
show_err("strict constant", lambda: jvp(lambda a: torch.ones(2), x, v3, strict=True))
show_err("strict linear independent", lambda: jvp(lambda a, b: a * 2, (x, y), (v3, v3), strict=True))

print("== vhp / hvp")
for fn in (vhp, hvp):
    out, res = fn(scalar, x, v3)
    print(fn.__name__, r(out), r(res), info(res))
    out, res = fn(scalar2, (x, y), (v3, y))
    print(fn.__name__, "tuple", r(out), r(res), info(res))
    print(fn.__name__, "create_graph", info(fn(scalar, x.clone().requires_grad_(), v3, create_graph=True)))
    print(fn.__name__, "linear", r(fn(lambda a: a.sum() * 2, x, v3)))
    show_err(fn.__name__ + " tuple output", lambda: fn(lambda a: (a.sum(), a.sum()), x, v3))
    show_err(fn.__name__ + " not scalar", lambda: fn(lambda a: a * 2, x, v3))
    show_err(fn.__name__ + " v missing", lambda: fn(scalar, x))
    show_err(fn.__name__ + " strict linear", lambda: fn(lambda a: a.sum() * 2, x, v3, strict=True))
    show_err(fn.__name__ + " strict independent", lambda: fn(lambda a, b: (a * a).sum(), (x, y), (v3, v3),
                                                              strict=True))

print("== jacobian / hessian strict")
show_err("jacobian strict independent", lambda: jacobian(lambda a, b: a * 2, (x, y), strict=True))
show_err("jacobian strict create_graph", lambda: jacobian(lambda a: a * 2, x, strict=True, create_graph=True))
show_err("hessian strict linear", lambda: hessian(lambda a: a.sum() * 2, x, strict=True))
print("hessian strict", r(hessian(scalar, x, strict=True)))
