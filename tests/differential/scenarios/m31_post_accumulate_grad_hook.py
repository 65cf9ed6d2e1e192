"""m31: register_post_accumulate_grad_hook: fires after .grad is updated.

Intent: the hook receives the leaf itself (not the grad) once per pass even
when the leaf is used several times, sees the ACCUMULATED .grad (including
what was there before the pass), can modify or clear .grad in place (the
optimizer-in-backward pattern), does not fire under autograd.grad, is
refused on non-leaves, and must return None.
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

p = torch.tensor([1., 2.], requires_grad=True)
def hook(t):
    print("  post-acc: t is p", t is p, "grad", r(t.grad))
h = p.register_post_accumulate_grad_hook(hook)
out = (p * p + p * 3).sum()
print("pass 1")
out.backward(retain_graph=True)
print("pass 2 (accumulates)")
out.backward(retain_graph=True)
print("autograd.grad (no .grad, no hook)")
g, = torch.autograd.grad(out, p, retain_graph=True)
print("  grad", r(g), "p.grad", r(p.grad))
h.remove()

lr = 0.1
def sgd_step(t):
    with torch.no_grad():
        t.sub_(lr * t.grad)
    t.grad = None
p.register_post_accumulate_grad_hook(sgd_step)
print("optimizer-in-backward:")
out.backward()
print("  p", r(p), "p.grad", p.grad)

y = p * 2
show_err("on a non-leaf", lambda: y.register_post_accumulate_grad_hook(hook))
q = torch.tensor([1.], requires_grad=True)
def returns_value(t):
    print("  hook on q returns a tensor")
    return torch.zeros(1)
q.register_post_accumulate_grad_hook(returns_value)
show_err("hook returning a value", lambda: (q * 2).sum().backward())
print("q.grad (already accumulated before the hook)", r(q.grad))
