"""m12: Shape ops: permute of a 3-D tensor, reshape, view, transpose, expand, flatten, T.

Intent: a 3-D permute (a 2-D transpose is its own inverse, a 3-D permute is
not: its backward must apply the INVERSE permutation), plus the other view
ops. Each output is multiplied by distinct weights so a wrong gradient layout
shows up; node names are printed too.
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

def run(label, fn, shape=(2, 3, 4)):
    n = 1
    for s in shape:
        n *= s
    x = torch.arange(float(n)).reshape(shape).requires_grad_()
    y = fn(x)
    w = torch.arange(float(y.numel())).reshape(y.shape) * 10
    (y * w).sum().backward()
    print(label, "->", tuple(y.shape), y.grad_fn.name())
    print("   grad", x.grad.reshape(-1).tolist())

run("permute(2, 0, 1)", lambda x: x.permute(2, 0, 1))
run("permute(1, 2, 0)", lambda x: x.permute(1, 2, 0))
run("transpose(0, 2)", lambda x: x.transpose(0, 2))
run("reshape(4, 6)", lambda x: x.reshape(4, 6))
run("reshape(-1)", lambda x: x.reshape(-1))
run("view(6, 4)", lambda x: x.view(6, 4))
run("flatten()", lambda x: x.flatten())
run("flatten(1)", lambda x: x.flatten(1))
run("unsqueeze(1)", lambda x: x.unsqueeze(1))
run("T (2-D)", lambda x: x.T, shape=(3, 4))
run("transpose then reshape", lambda x: x.transpose(1, 2).reshape(2, 12))
run("expand(3, 2, 4)", lambda x: x.expand(3, 2, 4), shape=(1, 2, 4))
run("expand(2, -1, 3)", lambda x: x.expand(2, -1, 3), shape=(2, 1))
run("squeeze()", lambda x: x.squeeze(), shape=(2, 1, 3))
run("squeeze(1)", lambda x: x.squeeze(1), shape=(2, 1, 3))
x = torch.zeros(2, 3).transpose(0, 1)
show_err("view on non-contiguous", lambda: x.view(6))
show_err("reshape to a wrong size", lambda: torch.zeros(2, 3).reshape(4))
