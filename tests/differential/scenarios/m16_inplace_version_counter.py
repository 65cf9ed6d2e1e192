"""m16: In-place ops bump _version; the saved-tensor version check; leaf rules.

Intent: every in-place op (add_, mul_, sub_, zero_, fill_, copy_, clamp_)
increments _version by one, views share their base's counter, and the grad_fn
of a non-leaf is replaced by the in-place op's node. Modifying a tensor saved
for backward makes backward fail with the version numbers in the message.
In-place on a leaf requiring grad is refused, except under no_grad.
"""
import torch

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

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 1
print("y._version", y._version, "grad_fn", y.grad_fn.name())
for label, op in (("add_(1)", lambda t: t.add_(1)), ("mul_(2)", lambda t: t.mul_(2)),
                  ("sub_(1)", lambda t: t.sub_(1)), ("clamp_(0, 5)", lambda t: t.clamp_(0, 5)),
                  ("copy_", lambda t: t.copy_(torch.tensor([7., 8., 9.]))),
                  ("fill_(4)", lambda t: t.fill_(4.)), ("zero_()", lambda t: t.zero_())):
    ret = op(y)
    print(label, "-> _version", y._version, "returns self", ret is y, "grad_fn", y.grad_fn.name(), "value",
          r(y))

base = torch.zeros(2, 3)
view = base[0]
view.add_(1)
print("view add_: base._version", base._version, "view._version", view._version, r(base))
base.mul_(2)
print("base mul_: view._version", view._version)

a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
c = b * b        # saves b (version 0)
b.add_(1)
show_err("backward after saved b modified", lambda: c.sum().backward())

d = a.sigmoid()  # saves its result
d.mul_(2)
show_err("backward after saved result modified", lambda: d.sum().backward())

show_err("in-place on a leaf requiring grad", lambda: a.add_(1))
with torch.no_grad():
    a.add_(1)
print("under no_grad: a", r(a), "_version", a._version, "is_leaf", a.is_leaf)

e = a * 1
e.add_(torch.tensor([1., 1.]))
e.sum().backward()
print("gradient through add_ is identity: a.grad", r(a.grad))
