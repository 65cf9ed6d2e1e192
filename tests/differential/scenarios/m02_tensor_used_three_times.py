"""m02: A tensor used three times (the micrograd `=` vs `+=` bug).

Intent: t = x * 2 is used three times in z = t*t + t. The hook on t fires ONCE
with the accumulated gradient 2t + 1 (the engine sums the three contributions
in the input buffer before calling t's hooks), and x.grad is 2 * (2t + 1).
Then a leaf used three times directly: y = x + x + x -> x.grad == 3.
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

x = torch.tensor([1., -2., 3.], requires_grad=True)
t = x * 2
calls = []
def hook_t(g):
    calls.append(1)
    print("hook t", r(g))
t.register_hook(hook_t)
z = t * t + t
z.sum().backward()
print("hook t calls:", len(calls))
print("x.grad", r(x.grad))

w = torch.tensor([0.5, 1.5], requires_grad=True)
w.register_hook(lambda g: print("hook w", r(g)))
y = w + w + w
print("y.grad_fn", y.grad_fn.name(), [(None if n is None else n.name(), i) for n,
                                      i in y.grad_fn.next_functions])
y.sum().backward()
print("w.grad", r(w.grad))

# the same leaf appears three times in one op chain: w * w * w
w.grad = None
(w * w * w).sum().backward()
print("d/dw w^3 =", r(w.grad), "expected", r(3 * w.detach() ** 2))
