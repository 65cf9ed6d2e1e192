"""m04: torch.autograd.grad with leaf inputs, non-leaf inputs, unused inputs.

Intent: autograd.grad returns gradients without touching .grad. For a leaf
input the AccumulateGrad node is not run (so no post-accumulate hook), but the
leaf's tensor hook still fires. For a non-leaf input the result is captured at
the tensor's grad_fn input: the tensor hook fires, the node that produced it
does not run (its pre-hook is not called) because nothing below is needed.
allow_unused decides between an error and None.
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
x.register_post_accumulate_grad_hook(lambda p: print("  post-acc x (should not fire)"))
y = x * 3
y.register_hook(lambda g: print("  hook y", r(g)))
y.grad_fn.register_prehook(lambda go: print("  pre y.grad_fn", y.grad_fn.name()))
z = (y * y).sum()

print("grad wrt x (leaf):")
gx, = torch.autograd.grad(z, x, retain_graph=True)
print("  result", r(gx), "x.grad", x.grad)
print("grad wrt y (non-leaf):")
gy, = torch.autograd.grad(z, y, retain_graph=True)
print("  result", r(gy), "y.grad_fn ran? see above")
print("grad wrt (y, x):")
gy2, gx2 = torch.autograd.grad(z, (y, x), retain_graph=True)
print("  results", r(gy2), r(gx2))

u = torch.tensor([5.], requires_grad=True)
show_err("unused input", lambda: torch.autograd.grad(z, [x, u], retain_graph=True))
res = torch.autograd.grad(z, [x, u], retain_graph=True, allow_unused=True)
print("allow_unused ->", [None if g is None else r(g) for g in res])
show_err("input not requiring grad",
         lambda: torch.autograd.grad(z, [torch.tensor([1.])], retain_graph=True))
show_err("non-scalar output without grad_outputs", lambda: torch.autograd.grad(y, x))
g, = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1., 10.]))
print("with grad_outputs", r(g))
