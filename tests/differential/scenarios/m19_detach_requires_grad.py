"""m19: detach, requires_grad_, is_leaf and what they share.

Intent: detach() gives a leaf that does not require grad and SHARES data and
the version counter with its source (an in-place change through the detached
tensor is visible and bumps _version, so the original's backward can fail).
requires_grad_ works on leaves only when turning it on for a non-leaf is
meaningless; clone keeps the graph (CloneBackward0).
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

x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
d = y.detach()
print("d.requires_grad", d.requires_grad, "d.is_leaf", d.is_leaf, "d.grad_fn", d.grad_fn)
print("versions before:", y._version, d._version)
d.add_(10)
print("after d.add_(10): y", r(y), "y._version", y._version, "d._version", d._version)

z = x.exp()
z.detach().mul_(2)
show_err("backward after detached in-place on saved result", lambda: z.sum().backward())

c = y.clone()
print("clone grad_fn", c.grad_fn.name(), "is_leaf", c.is_leaf)

print("y.is_leaf", y.is_leaf, "x.is_leaf", x.is_leaf)
show_err("y.requires_grad_(False) on a non-leaf", lambda: y.requires_grad_(False))
print("y.requires_grad_(True) on a non-leaf returns self:", y.requires_grad_(True) is y)
w = torch.tensor([3., 4.])
print("w.requires_grad_() returns self:", w.requires_grad_() is w, "requires_grad", w.requires_grad,
      "is_leaf", w.is_leaf)
w.requires_grad_(False)
print("w.requires_grad_(False):", w.requires_grad)

dd = x.detach().requires_grad_()
(dd * dd).sum().backward()
print("detached leaf gets its own grad", r(dd.grad), "x.grad", x.grad)
with torch.no_grad():
    n = x * 2
print("made under no_grad: is_leaf", n.is_leaf, "requires_grad", n.requires_grad)
