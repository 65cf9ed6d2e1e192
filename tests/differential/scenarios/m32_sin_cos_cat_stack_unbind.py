"""m32: sin/cos, cat, stack and unbind: grads and hooks on multi-output nodes.

Intent: cat/stack split the gradient back to each input; unbind is a single
node with several outputs: hooks on each output fire, the hook of an unused
output receives None and the node's grad_outputs holds None in that slot (the
input row still gets a zero gradient); sin/cos are composed
so their values are checked after rounding.
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

x = torch.tensor([0., 0.5, 1.], requires_grad=True)
y = x.sin() * x.cos()                    # = sin(2x) / 2
y.sum().backward()
print("d/dx sin x cos x = cos 2x:", r(x.grad), "expected", r(torch.cos(2 * x.detach())))

a = torch.tensor([[1., 2.]], requires_grad=True)
b = torch.tensor([[3., 4.], [5., 6.]], requires_grad=True)
c = torch.cat([a, b])
(c * torch.tensor([[1.], [2.], [3.]])).sum().backward()
print("cat dim0:", tuple(c.shape), "a.grad", r(a.grad), "b.grad", r(b.grad))

u = torch.tensor([1., 2.], requires_grad=True)
v = torch.tensor([3., 4.], requires_grad=True)
s = torch.stack([u, v], dim=1)
print("stack dim1:", r(s))
s.backward(torch.tensor([[1., 10.], [100., 1000.]]))
print("u.grad", r(u.grad), "v.grad", r(v.grad))

m = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
rows = m.unbind(0)
node = rows[0].grad_fn
node.register_prehook(lambda go: print("UnbindBackward0 pre-hook grad_outputs", [r(g) for g in go]))
for i, t in enumerate(rows):
    t.register_hook(lambda g, i=i: print("hook row", i, r(g)))
(rows[0] * 2 + rows[2]).sum().backward()
print("m.grad", r(m.grad))
cols = m.unbind(1)
print("unbind(1) values", [r(t) for t in cols])
