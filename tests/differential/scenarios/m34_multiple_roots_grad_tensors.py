"""m34: torch.autograd.backward with several roots and grad_tensors.

Intent: two roots sharing a leaf: the leaf's gradient is the sum of both
contributions weighted by grad_tensors, its hook fires once; a None entry in
grad_tensors is allowed for a scalar root; the length mismatch is an error.
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
x.register_hook(lambda g: print("  hook x", r(g)))
a = x * 2
b = x ** 2
a.register_hook(lambda g: print("  hook a", r(g)))
b.register_hook(lambda g: print("  hook b", r(g)))
print("two roots with grad_tensors")
torch.autograd.backward([a, b], grad_tensors=[torch.tensor([1., 1.]), torch.tensor([10., 100.])],
                        retain_graph=True)
print("x.grad", r(x.grad))
x.grad = None
print("scalar roots, grad_tensors None")
torch.autograd.backward([a.sum(), b.sum()], retain_graph=True)
print("x.grad", r(x.grad))
x.grad = None
print("single tensor root, scalar grad given as 0-dim tensor")
torch.autograd.backward(b.sum(), torch.tensor(3.), retain_graph=True)
print("x.grad", r(x.grad))
show_err("grad_tensors length mismatch",
         lambda: torch.autograd.backward([a, b], grad_tensors=[torch.ones(2)]))
x.grad = None
gs = torch.autograd.grad([a.sum(), b.sum()], x)
print("autograd.grad with two outputs", r(gs[0]))
