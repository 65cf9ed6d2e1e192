"""m26: A custom autograd.Function with two outputs, saved tensors and ctx flags.

Intent: forward returns (sum, prod) of two inputs; only one output is used by
the loss, so backward receives zeros (materialized) for the other. Also
needs_input_grad for an input that does not require grad, a non-differentiable
output, the node name "<Class>Backward", and a backward returning a wrong
number of values.
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

class SumProd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a + b, a * b

    @staticmethod
    def backward(ctx, g_sum, g_prod):
        a, b = ctx.saved_tensors
        print("  backward got", r(g_sum), r(g_prod), "needs_input_grad", ctx.needs_input_grad)
        return g_sum + g_prod * b, g_sum + g_prod * a

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
s, p = SumProd.apply(a, b)
print("node", s.grad_fn.name(), "same node", s.grad_fn is p.grad_fn,
      "edges", [(None if n is None else n.name(), i) for n, i in s.grad_fn.next_functions])
p.sum().backward()
print("a.grad", r(a.grad), "b.grad", r(b.grad))

c = torch.tensor([5., 6.])
s2, p2 = SumProd.apply(a, c)
(s2 * p2).sum().backward()
print("a.grad after 2nd", r(a.grad))

class ArgmaxAndMax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.max(0)[1]
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return x.max(), idx

    @staticmethod
    def backward(ctx, g_val, g_idx):
        x, idx = ctx.saved_tensors
        print("  g_idx is", g_idx if g_idx is None else r(g_idx))
        return torch.where(torch.arange(x.shape[0]) == idx, g_val.expand(x.shape), torch.zeros_like(x))

x = torch.tensor([1., 7., 3.], requires_grad=True)
val, idx = ArgmaxAndMax.apply(x)
print("idx.requires_grad", idx.requires_grad, "val.requires_grad", val.requires_grad, val.grad_fn.name())
val.backward()
print("x.grad", r(x.grad))

class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g,

show_err("backward returns too few", lambda: WrongCount.apply(a, b).sum().backward())
