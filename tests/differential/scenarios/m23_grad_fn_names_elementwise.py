"""m23: grad_fn.name() for element-wise ops, as PyTorch 2.13 prints them.

Intent: the node name is part of what a learner sees in every trace. The
number suffix matters (the overload: tensor-tensor vs tensor-scalar) and is
recorded here exactly as torch prints it.
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
w = torch.tensor([3., 4.], requires_grad=True)
cases = [
    ("x + w", lambda: x + w), ("x + 1", lambda: x + 1), ("1 + x", lambda: 1 + x),
    ("x.add(w)", lambda: x.add(w)), ("x.add(w, alpha=2)", lambda: x.add(w, alpha=2)),
    ("x - w", lambda: x - w), ("x - 1", lambda: x - 1), ("1 - x", lambda: 1 - x),
    ("x.sub(w)", lambda: x.sub(w)),
    ("x * w", lambda: x * w), ("x * 2", lambda: x * 2), ("2 * x", lambda: 2 * x),
    ("x.mul(w)", lambda: x.mul(w)),
    ("x / w", lambda: x / w), ("x / 2", lambda: x / 2), ("2 / x", lambda: 2 / x),
    ("x.div(w)", lambda: x.div(w)),
    ("x ** 2", lambda: x ** 2), ("x ** w", lambda: x ** w), ("2 ** x", lambda: 2 ** x),
    ("x.pow(3)", lambda: x.pow(3)), ("x ** 0.5", lambda: x ** 0.5),
    ("-x", lambda: -x), ("x.exp()", lambda: x.exp()), ("torch.exp(x)", lambda: torch.exp(x)),
    ("x.log()", lambda: x.log()), ("torch.log(x)", lambda: torch.log(x)),
    ("x.tanh()", lambda: x.tanh()), ("torch.tanh(x)", lambda: torch.tanh(x)),
    ("x.sigmoid()", lambda: x.sigmoid()), ("torch.sigmoid(x)", lambda: torch.sigmoid(x)),
    ("x.relu()", lambda: x.relu()), ("torch.relu(x)", lambda: torch.relu(x)),
    ("x.abs()", lambda: x.abs()), ("x.sqrt()", lambda: x.sqrt()),
    ("x.sin()", lambda: x.sin()), ("x.cos()", lambda: x.cos()),
    ("x.clamp(0, 1)", lambda: x.clamp(0, 1)), ("x.clamp(min=0)", lambda: x.clamp(min=0)),
    ("x.clamp(max=1)", lambda: x.clamp(max=1)),
    ("torch.clamp(x, 0, 1)", lambda: torch.clamp(x, 0, 1)),
    ("torch.maximum(x, w)", lambda: torch.maximum(x, w)),
    ("x.clone()", lambda: x.clone()),
]
for label, fn in cases:
    y = fn()
    print(f"{label:<22} {y.grad_fn.name():<20} {r(y)}")
