"""m29: node._raw_saved_<name>.register_hooks(pack, unpack).

Intent: registering hooks on one saved value of an existing node runs pack
immediately and unpack when the value is needed (backward or _saved_ access);
a second registration on the same value fails; registering on a value that
was saved under saved_tensors_hooks fails too; after backward without
retain_graph, access fails with the freed-buffer message.
"""
import torch
from torch.autograd.graph import saved_tensors_hooks

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
raw = y.grad_fn._raw_saved_self
print("type", type(raw).__name__)

def pack(t):
    print("  pack", r(t))
    return ("packed", t * 10)
def unpack(p):
    print("  unpack", p[0], r(p[1]))
    return p[1] / 10

print("register_hooks:")
raw.register_hooks(pack, unpack)
show_err("register_hooks twice", lambda: raw.register_hooks(pack, unpack))
print("access _saved_self:")
print("  ->", r(y.grad_fn._saved_self))
print("backward:")
y.sum().backward()
print("w.grad", r(w.grad), "x.grad", r(x.grad))
show_err("_saved_self after backward", lambda: y.grad_fn._saved_self)

with saved_tensors_hooks(lambda t: t, lambda t: t):
    z = x * w
show_err("register_hooks on a value saved under saved_tensors_hooks",
         lambda: z.grad_fn._raw_saved_other.register_hooks(pack, unpack))
try:
    (x * w).grad_fn._raw_saved_self.register_hooks(1, unpack)
    print("pack not callable -> no error")
except Exception as e:  # the message is pybind11's and names object addresses: type only
    print("pack not callable ->", type(e).__name__)
