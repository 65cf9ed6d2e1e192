"""m35: Numeric edge cases: inf and nan gradients at the boundary of the domain.

Intent: sqrt at 0 has an infinite gradient, log at 0 gives -inf and an infinite
gradient, x**0 has a zero gradient even at x=0, 0**2 a zero gradient, x**0.5 at
0 is inf, division by zero, tanh/sigmoid saturation, exp overflow in float32.
Values print as Python floats (inf/nan), which both frameworks give via tolist.
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

def run(label, fn, data):
    x = torch.tensor(data, requires_grad=True)
    y = fn(x)
    y.sum().backward()
    print(f"{label:<14} value {r(y)} grad {r(x.grad)}")

run("sqrt", lambda x: x.sqrt(), [0., 4.])
run("log", lambda x: x.log(), [0., 1.])
run("x ** 0", lambda x: x ** 0, [0., 2.])
run("x ** 2", lambda x: x ** 2, [0., -3.])
run("x ** 0.5", lambda x: x ** 0.5, [0., 4.])
run("1 / x", lambda x: 1 / x, [0., 2.])
run("x / 0", lambda x: x / torch.tensor([0., 0.]), [1., 0.])
run("tanh", lambda x: x.tanh(), [-50., 50.])
run("sigmoid", lambda x: x.sigmoid(), [-100., 100.])
run("exp", lambda x: x.exp(), [100., -200.])
run("log(-1)", lambda x: x.log(), [-1.])
run("sqrt(-1)", lambda x: x.sqrt(), [-1.])
run("softmax big", lambda x: x.softmax(0) * torch.tensor([1., 0.]), [1000., 0.])
run("log_softmax", lambda x: x.log_softmax(0) * torch.tensor([1., 0.]), [1000., 0.])
