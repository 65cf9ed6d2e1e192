"""v04: a view's node is regenerated whenever its memory changed in place.

Intent: a view remembers the version at which its grad_fn was made. Any in-place
change of the shared memory afterwards (through the base, through another view,
or under no_grad) makes the old node stale; the next access of `view.grad_fn`
gives AsStridedBackward0 whose edge is the base's current node. The traps: after
`h.mul_(3)` a view taken before sees the tripled gradient; after
`with no_grad(): v.add_(1)` the node changes although nothing was recorded (the
gradient is the same); a base used after an in-place through its view carries
the in-place's derivative to every later use; a view made under no_grad cannot be
modified in place with grad mode on.
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

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)

h = x * 2
v = h[0]
print("v before:", names(v.grad_fn, 1))
h.mul_(3)
print("after h.mul_(3): v", names(v.grad_fn, 1), "| h", names(h.grad_fn, 1))
(v * v).sum().backward()
print("  x.grad", r(x.grad))

x.grad = None
h = x * 2
v = h[0]
with torch.no_grad():
    v.add_(1)
print("after no_grad v.add_(1): v", names(v.grad_fn, 1), "| h", names(h.grad_fn, 1), "| v", r(v))
(v * v).sum().backward()
print("  x.grad", r(x.grad))

x.grad = None
h = x * 2
a = h[:, 0]
b = h[:, 2]
a.exp_()
print("other view b after a.exp_():", names(b.grad_fn, 1), "| a", names(a.grad_fn, 1))
(h.sum() + (b * 10).sum()).backward(retain_graph=True)
print("  x.grad", r(x.grad))
x.grad = None
loss = (h ** 2).sum()
print("base used after the in-place: loss", r(loss), names(loss.grad_fn, 3))
loss.backward()
print("  x.grad", r(x.grad))

h = x * 2
with torch.no_grad():
    nv = h[1]
show_err("no_grad view .mul_(2) with grad on", lambda: nv.mul_(2))
with torch.no_grad():
    nv.mul_(2)
print("no_grad view .mul_(2) under no_grad: h", r(h), "version", h._version)

x.grad = None
h = x * 2
v = h[1]
v.retain_grad()
v.register_hook(lambda g: print("  v hook (before)", r(g)))
h[1] = 0.0
print("h[1] = 0.0 rewrote v too:", names(v.grad_fn, 1), "retains_grad", v.retains_grad)
v.register_hook(lambda g: print("  v hook (after)", r(g)))
(h.sum() + v.sum()).backward()
print("  x.grad", r(x.grad), "v.grad", r(v.grad))
