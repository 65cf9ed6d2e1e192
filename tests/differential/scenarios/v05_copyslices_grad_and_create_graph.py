"""v05: CopySlices under autograd.grad, create_graph and retain_graph.

Intent: CopySlices is an ordinary node for the engine: autograd.grad captures
through it, a second backward with retain_graph gives the same gradients, and with
create_graph=True its backward is itself differentiable (the in-place op's
derivative on the view's elements, identity elsewhere), so a second-order gradient
through `h[:, 1:].pow_(2)` is right. The trap: after the graph is freed, the
in-place op's saved values (kept by the node inside CopySlices) are gone too.
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
h = x * 1.5
h[:, 1:].pow_(2)
print("h", r(h), names(h.grad_fn, 2))
loss = (h * torch.tensor([1.0, 2.0, 3.0])).sum()
(g,) = torch.autograd.grad(loss, x, retain_graph=True)
print("autograd.grad", r(g), "| x.grad", x.grad)
loss.backward(retain_graph=True)
print("backward once", r(x.grad))
loss.backward()
print("backward twice", r(x.grad))
show_err("third backward", lambda: loss.backward())

x.grad = None
h = x * 1.5
v = h[:, 1:]
v.pow_(2)
loss = (h * h).sum()
(g,) = torch.autograd.grad(loss, x, create_graph=True)
print("create_graph: g", r(g), "requires_grad", g.requires_grad)
g.sum().backward()
print("second order x.grad", r(x.grad))

x.grad = None
y = torch.tensor([2.0, 3.0], requires_grad=True)
h = x * 1.0
h[0, :2] = y * y
(gx, gy) = torch.autograd.grad((h ** 2).sum(), (x, y), create_graph=True)
print("value through CopySlices: gx", r(gx), "gy", r(gy))
(gy.sum() + gx.sum()).backward()
print("  second order y.grad", r(y.grad), "x.grad", r(x.grad))
