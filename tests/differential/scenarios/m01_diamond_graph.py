"""m01: A diamond graph x -> (a, b) -> c.

Intent: x feeds two branches that meet again. The tensor hook on x (a leaf)
fires once with the SUM of both branch gradients (accumulated before the
AccumulateGrad node runs), each branch's hook fires once, and node pre/post
hooks show what every node receives and returns. The order of the two
branches follows the ready queue (higher sequence_nr first).
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
a = x * 2          # MulBackward0
b = x.exp()        # ExpBackward0, created after a
c = a * b          # MulBackward0
out = c.sum()

x.register_hook(lambda g: print("hook x", r(g)))
a.register_hook(lambda g: print("hook a", r(g)))
b.register_hook(lambda g: print("hook b", r(g)))
for name, t in (("a", a), ("b", b), ("c", c), ("out", out)):
    node = t.grad_fn
    node.register_prehook(lambda go, name=name, node=node: print("pre ", name, node.name(),
                                                                 [r(g) for g in go]))
    node.register_hook(lambda gi, go, name=name: print("post", name,
                                                       [None if g is None else r(g) for g in gi]))
acc = a.grad_fn.next_functions[0][0]
print("a's next is", acc.name(), "same as b's:", acc is b.grad_fn.next_functions[0][0])
acc.register_prehook(lambda go: print("pre  AccumulateGrad", [r(g) for g in go]))
out.backward()
print("x.grad", r(x.grad), "expected (2 + 2x) e^x =", r((2 + 2 * x.detach()) * x.detach().exp()))
