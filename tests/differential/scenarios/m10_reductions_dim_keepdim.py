"""m10: Reductions with dim, keepdim and tuple dims: values, grads, node names.

Intent: sum/mean/max/min over all elements, one dim, a tuple of dims, with and
without keepdim; a negative dim. The grad of every reduction is broadcast back
to the input shape; max/min with dim route the gradient to the argmax only.
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

base = [[[1., 5., 2.], [7., 3., 4.]], [[0., 9., 6.], [8., -1., 2.]]]   # [2, 2, 3]

def run(label, fn):
    x = torch.tensor(base, requires_grad=True)
    out = fn(x)
    if isinstance(out, tuple):
        vals, idx = out
        print(label, "values", tuple(vals.shape), r(vals), "indices", idx.tolist(), vals.grad_fn.name())
        out = vals
    else:
        print(label, tuple(out.shape), r(out), out.grad_fn.name())
    weights = torch.arange(float(out.numel())).reshape(out.shape) + 1
    (out * weights).sum().backward()
    print("   grad", r(x.grad))

run("sum()", lambda x: x.sum())
run("sum(0)", lambda x: x.sum(0))
run("sum(dim=1, keepdim=True)", lambda x: x.sum(dim=1, keepdim=True))
run("sum(dim=(0, 2))", lambda x: x.sum(dim=(0, 2)))
run("sum(-1)", lambda x: x.sum(-1))
run("torch.sum(x, 2)", lambda x: torch.sum(x, 2))
run("mean()", lambda x: x.mean())
run("mean(1)", lambda x: x.mean(1))
run("mean(dim=(1, 2), keepdim=True)", lambda x: x.mean(dim=(1, 2), keepdim=True))
run("torch.mean(x, -1)", lambda x: torch.mean(x, -1))
run("max()", lambda x: x.max())
run("min()", lambda x: x.min())
run("max(dim=2)", lambda x: x.max(dim=2))
run("max(1, keepdim=True)", lambda x: x.max(1, keepdim=True))
run("min(dim=0)", lambda x: x.min(dim=0))
m = torch.tensor(base).max(dim=2)
print("namedtuple fields:", m.values.tolist(), m.indices.tolist())
