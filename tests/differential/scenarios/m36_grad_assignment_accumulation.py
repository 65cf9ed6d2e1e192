"""m36: .grad is assignable; backward accumulates into whatever is there.

Intent: assigning .grad (a tensor or None) changes what backward adds to;
assigning a wrong shape or a non-tensor fails with PyTorch's messages; a
non-leaf's retained grad accumulates across passes too; hooks see only the
fresh gradient, not the accumulated one.
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
x.register_hook(lambda g: print("  hook x sees fresh grad", r(g)))
x.grad = torch.tensor([100., 200.])
(x * 3).sum().backward()
print("x.grad", r(x.grad))
x.grad = None
(x * 3).sum().backward()
print("after reset to None", r(x.grad))
x.grad.zero_()
(x * 3).sum().backward()
print("after zero_()", r(x.grad))

def assign(v):
    x.grad = v
show_err("assign wrong shape", lambda: assign(torch.zeros(3)))
show_err("assign a list", lambda: assign([1., 2.]))
show_err("assign float64", lambda: assign(torch.zeros(2, dtype=torch.float64)))
print("x.grad unchanged", r(x.grad))

y = x * 2
y.retain_grad()
s = (y * y).sum()
s.backward(retain_graph=True)
s.backward()
print("retained non-leaf grad accumulates:", r(y.grad))
