"""m14: masked_fill and where: values, gradients, node names.

Intent: masked positions get no gradient from masked_fill; where routes each
element's gradient to the branch it came from (the other branch gets 0), and
a broadcast scalar / [1] branch receives the sum of its selected positions.
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

x = torch.tensor([1., -2., 3., -4.], requires_grad=True)
mask = x < 0
print("mask", mask.tolist())
y = x.masked_fill(mask, 0.)
print("masked_fill", r(y), y.grad_fn.name())
(y * torch.tensor([1., 2., 3., 4.])).sum().backward()
print("x.grad", r(x.grad))

a = torch.tensor([1., 2., 3., 4.], requires_grad=True)
b = torch.tensor([10., 20., 30., 40.], requires_grad=True)
cond = torch.tensor([True, False, True, False])
w = torch.where(cond, a, b)
print("where", r(w), w.grad_fn.name())
w.backward(torch.tensor([1., 2., 3., 4.]))
print("a.grad", r(a.grad), "b.grad", r(b.grad))

c = torch.tensor([5.], requires_grad=True)
w2 = torch.where(cond, a * 1, c)
w2.sum().backward()
print("broadcast [1] branch c.grad", r(c.grad))

z = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
m2 = torch.tensor([[True], [False]])
zf = z.masked_fill(m2, -1.)
zf.sum().backward()
print("masked_fill with a broadcast mask", r(zf), "grad", r(z.grad))
