"""m09: Broadcasting gradients, [3,1] * [1,4] and friends.

Intent: the gradient of a broadcast operand is summed back to its own shape.
Node post-hooks show the shapes the node returns (grad_inputs) and receives
(grad_outputs); tensor hooks on the leaves and .grad show the reduced shapes.
Also a [4] + [3,4] add, a scalar-tensor multiply and a 0-dim operand.
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

def shapes(ts):
    return [None if t is None else tuple(t.shape) for t in ts]

a = torch.tensor([[1.], [2.], [3.]], requires_grad=True)          # [3, 1]
b = torch.tensor([[1., 10., 100., 1000.]], requires_grad=True)    # [1, 4]
c = a * b                                                         # [3, 4]
print("c.shape", tuple(c.shape))
c.grad_fn.register_hook(lambda gi, go: print("MulBackward0 post: grad_inputs", shapes(gi), "grad_outputs",
                                             shapes(go)))
a.register_hook(lambda g: print("hook a", tuple(g.shape), r(g)))
b.register_hook(lambda g: print("hook b", tuple(g.shape), r(g)))
c.backward(torch.ones(3, 4))
print("a.grad", tuple(a.grad.shape), r(a.grad))
print("b.grad", tuple(b.grad.shape), r(b.grad))

v = torch.tensor([1., 2., 3., 4.], requires_grad=True)            # [4]
m = torch.ones(3, 4, requires_grad=True)
s = v + m
s.grad_fn.register_hook(lambda gi, go: print("AddBackward0 post: grad_inputs", shapes(gi), "grad_outputs",
                                             shapes(go)))
(s * torch.arange(12.).reshape(3, 4)).sum().backward()
print("v.grad", tuple(v.grad.shape), r(v.grad))

k = torch.tensor(2., requires_grad=True)                          # 0-dim
q = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
(k * q).sum().backward()
print("k.grad", tuple(k.grad.shape), r(k.grad), "q.grad", r(q.grad))

d = torch.tensor([[1.], [2.]], requires_grad=True)                # [2, 1]
e = d / torch.tensor([1., 2., 4.])                                # [2, 3]
e.sum().backward()
print("d.grad after / by [3]", tuple(d.grad.shape), r(d.grad))
