"""m06: Hooks on OTHER tensors added and removed while backward is running.

Intent: a hook on z (run first) registers a new hook on y and removes a hook
on w, both further down the graph. Because y's and w's hooks are looked up
when their nodes run, the new hook fires and the removed one does not. A hook
added to z itself during z's own hook does not fire in this pass (snapshot).
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
w = x * 2
y = w + 1
z = y * 3
handle_w = w.register_hook(lambda g: print("  hook w (removed mid-pass, should not fire)"))
w.register_hook(lambda g: print("  hook w #2", r(g)))

def on_z(g):
    print("  hook z", r(g))
    y.register_hook(lambda g: print("  hook y added mid-pass", r(g)))
    handle_w.remove()
    z.register_hook(lambda g: print("  hook z added during z's hooks (next pass only)"))

z.register_hook(on_z)
print("pass 1")
z.sum().backward(retain_graph=True)
print("pass 2")
z.sum().backward()
print("x.grad", r(x.grad))
