"""m03: Two backward passes with retain_graph, then the freed-buffer error.

Intent: the first backward(retain_graph=True) keeps saved tensors; the second
accumulates into x.grad (2x), and hooks fire again each pass. A third backward
without retain_graph frees buffers; the fourth fails with PyTorch's message.
A graph with no saved tensors (x + 1) can be re-run even after freeing.
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
y = x * x
y.register_hook(lambda g: print("  hook y", r(g)))
s = y.sum()
for i, kw in enumerate(({"retain_graph": True}, {"retain_graph": True}, {})):
    print("pass", i + 1, kw)
    s.backward(**kw)
    print("  x.grad", r(x.grad))
show_err("pass 4 after buffers were freed", lambda: s.backward())
print("x.grad unchanged", r(x.grad))

a = torch.tensor([1., 2.], requires_grad=True)
b = (a + 1).sum()
b.backward()
show_err("second backward through add (nothing saved)", lambda: b.backward())
print("a.grad", r(a.grad))
