"""m05: backward(inputs=...) with a non-leaf input.

Intent: naming a non-leaf y in `inputs` accumulates its gradient into y.grad
(no retain_grad needed) and stops there: x.grad stays None and the nodes
below y do not run. The leaf-only variant fills only the named leaf.
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
y = x * w
y.grad_fn.register_prehook(lambda go: print("  MulBackward0 (y) ran"))
z = (y * y).sum()
z.backward(inputs=[y], retain_graph=True)
print("y.grad", r(y.grad), "y.is_leaf", y.is_leaf, "y.retains_grad", y.retains_grad)
print("x.grad", x.grad, "w.grad", w.grad)
z.backward(inputs=[y], retain_graph=True)
print("second time y.grad accumulates", r(y.grad))
z.backward(inputs=[w], retain_graph=True)
print("inputs=[w]: w.grad", r(w.grad), "x.grad", x.grad)
torch.autograd.backward(z, inputs=[x, y])
print("autograd.backward inputs=[x, y]: x.grad", r(x.grad), "y.grad", r(y.grad))
show_err("empty inputs", lambda: (x * 2).sum().backward(inputs=[]))
