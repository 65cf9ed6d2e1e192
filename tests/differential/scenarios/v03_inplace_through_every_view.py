"""v03: in-place through every kind of view, and through chains of views.

Intent: whatever view op made the view (slicing, select, view, t, transpose,
unsqueeze, a view of a view), after an in-place op on it the base's node is
CopySlices and the view's node is AsStridedBackward0; the gradient reaching the
base's old node has the in-place op's derivative exactly on the view's elements.
The traps: a transposed view's elements are not contiguous in the base; a view of
a view is located in the root base; in-place on an expanded tensor is refused
(two elements share memory) and on a view of a leaf requiring grad too.
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

def names(node, depth=3):
    """node name with its next_functions, `depth` levels down."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return [node.name(), [names(n, depth - 1) for n, _ in node.next_functions]]

x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], requires_grad=True)
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
views = [
    ("h[:, :2]", lambda h: h[:, :2]),
    ("h[0]", lambda h: h[0]),
    ("h[:, 1]", lambda h: h[:, 1]),
    ("h.view(6)", lambda h: h.view(6)),
    ("h.view(3, 2)[1:]", lambda h: h.view(3, 2)[1:]),
    ("h.t()", lambda h: h.t()),
    ("h.transpose(0, 1)[1:]", lambda h: h.transpose(0, 1)[1:]),
    ("h.unsqueeze(0)", lambda h: h.unsqueeze(0)),
    ("h[1:][:, 1:]", lambda h: h[1:][:, 1:]),
    ("h.t()[2]", lambda h: h.t()[2]),
]
for label, make in views:
    x.grad = None
    h = x * 2
    v = make(h)
    before = v.grad_fn.name()
    v.mul_(torch.arange(1.0, v.numel() + 1).view(v.shape))
    print(label, "| view node before:", before, "| after:", names(v.grad_fn, 1),
          "| base:", names(h.grad_fn, 1))
    print("  geometry", v.grad_fn._saved_size, v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset)
    print("  h", r(h))
    (h * w).sum().backward()
    print("  x.grad", r(x.grad))

h = x * 2
v = h[0]
u = v[1:]
u.sigmoid_()
print("view of a view: v", names(v.grad_fn, 1), "u", names(u.grad_fn, 1), "h", names(h.grad_fn, 1))
x.grad = None
(v.sum() + u.sum() * 3).backward()
print("  x.grad", r(x.grad))

h = x * 2
e = h[0].unsqueeze(0).expand(2, 3)
show_err("expand(...).mul_(2)", lambda: e.mul_(2))
show_err("expand(...)[0] = 1.0", lambda: e.__setitem__(0, 1.0))
show_err("x[:, 1].mul_(2) (view of a leaf)", lambda: x[:, 1].mul_(2))
show_err("x.view(6).zero_() (view of a leaf)", lambda: x.view(6).zero_())
show_err("x.t().add_(1) (view of a leaf)", lambda: x.t().add_(1))
with torch.no_grad():
    x[:, 1].mul_(1)
print("x[:, 1].mul_(1) under no_grad: x version", x._version, "leaf", x.is_leaf)

h = x * 2
e = h[1].unsqueeze(0).expand(2, 3)
e2 = e[1]
e2.mul_(torch.tensor([1.0, 10.0, 100.0]))
print("expand(...)[1].mul_(...) is allowed (no overlap in the row): h", r(h), names(h.grad_fn, 1))
x.grad = None
h.sum().backward()
print("  x.grad", r(x.grad))
show_err("expand(...)[:, 0] = 1.0", lambda: e.__setitem__((slice(None), 0), 1.0))
with torch.no_grad():
    f = torch.zeros(3).unsqueeze(0).expand(2, 3)
    f[0] = 1.0
    print("under no_grad, expand(...)[0] = 1.0:", r(f))
    show_err("  under no_grad, expand(...)[:, 0] = 1.0", lambda: f.__setitem__((slice(None), 0), 1.0))
    show_err("  under no_grad, expand(...).add_(1)", lambda: f.add_(1))
