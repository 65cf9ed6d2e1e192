"""m11: Indexing with ints, slices and index arrays; repeated indices accumulate.

Intent: x[[0, 0, 2]] uses x[0] twice, so x.grad[0] collects both upstream
gradients (index_put with accumulate). Integer, slice, negative, 2-D, tensor
index and mixed indexing each give their own node name and grad.
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

def run(label, fn, shape_from=None):
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], requires_grad=True)
    y = fn(x)
    w = torch.arange(float(y.numel())).reshape(y.shape) + 1
    (y * w).sum().backward()
    print(label, tuple(y.shape), r(y), y.grad_fn.name(), "grad", r(x.grad))

run("x[1]", lambda x: x[1])
run("x[-1]", lambda x: x[-1])
run("x[0:2]", lambda x: x[0:2])
run("x[:, 1]", lambda x: x[:, 1])
run("x[1, 2]", lambda x: x[1, 2])
run("x[::2, 1:]", lambda x: x[::2, 1:])
run("x[[0, 0, 2]]", lambda x: x[[0, 0, 2]])
run("x[tensor([2, 2, 2])]", lambda x: x[torch.tensor([2, 2, 2])])
run("x[[0, 1, 1], [2, 2, 0]]", lambda x: x[[0, 1, 1], [2, 2, 0]])
run("x[:, [0, 0]]", lambda x: x[:, [0, 0]])
run("x[x > 4]", lambda x: x[x > 4])

v = torch.tensor([10., 20., 30.], requires_grad=True)
idx = torch.tensor([0, 2, 0, 0])
g = v[idx]
g.register_hook(lambda gr: print("hook on gathered", r(gr)))
g.backward(torch.tensor([1., 2., 3., 4.]))
print("v.grad (index 0 used 3 times)", r(v.grad))
show_err("index out of range", lambda: v[5])
