"""m15: Non-smooth points: clamp at its boundaries, relu/abs at 0, maximum and max ties.

Intent: these are conventions, not math, so they are exactly where a
re-implementation drifts. clamp passes the gradient when the input equals
min or max; relu and abs give 0 at 0; torch.maximum splits the gradient in
half on ties; a full max() spreads it evenly over all tied maxima; max(dim)
sends it to one index.
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

def grad_of(label, fn, data):
    x = torch.tensor(data, requires_grad=True)
    y = fn(x)
    y.sum().backward()
    print(label, "value", r(y), "grad", r(x.grad), y.grad_fn.name())

pts = [-2., -1., -0.5, 0., 0.5, 1., 2.]
grad_of("clamp(-1, 1)", lambda x: x.clamp(-1, 1), pts)
grad_of("clamp(min=0)", lambda x: x.clamp(min=0), pts)
grad_of("clamp(max=0.5)", lambda x: x.clamp(max=0.5), pts)
grad_of("torch.clamp(x, -0.5, 0.5)", lambda x: torch.clamp(x, -0.5, 0.5), pts)
grad_of("relu", lambda x: x.relu(), pts)
grad_of("torch.relu", lambda x: torch.relu(x), pts)
grad_of("abs", lambda x: x.abs(), pts)

a = torch.tensor([1., 2., 3.], requires_grad=True)
b = torch.tensor([1., 5., 0.], requires_grad=True)
m = torch.maximum(a, b)
m.backward(torch.tensor([10., 10., 10.]))
print("maximum", r(m), m.grad_fn.name(), "a.grad", r(a.grad), "b.grad", r(b.grad))

grad_of("max() with 3 tied maxima", lambda x: x.max(), [3., 1., 3., 3.])
grad_of("min() with 2 tied minima", lambda x: x.min(), [0., 1., 0., 3.])
x = torch.tensor([[3., 1., 3.], [2., 2., 0.]], requires_grad=True)
v, i = x.max(dim=1)
v.sum().backward()
print("max(dim=1) ties -> indices", i.tolist(), "grad", r(x.grad))
