"""m27: saved_tensors_hooks: which ops pack what, and _saved_* attributes.

Intent: for each op, count the pack calls (how many tensors it saves) and list
the node's _saved_* values PyTorch exposes. Unpack runs once per access during
backward. Nested contexts: only the innermost pair is used; after the contexts
exit, nothing is packed.
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
log = []
def pack(t):
    log.append(("pack", tuple(t.shape)))
    return t
def unpack(t):
    log.append(("unpack", tuple(t.shape)))
    return t

ops = [("x * w", lambda: x * w), ("x * 2", lambda: x * 2), ("x + w", lambda: x + w),
       ("x.exp()", lambda: x.exp()), ("x.tanh()", lambda: x.tanh()), ("x.sigmoid()", lambda: x.sigmoid()),
       ("x.log()", lambda: x.log()), ("x / w", lambda: x / w), ("x ** 2", lambda: x ** 2),
       ("x.relu()", lambda: x.relu()), ("x.sum()", lambda: x.sum())]
for label, fn in ops:
    log.clear()
    with saved_tensors_hooks(pack, unpack):
        y = fn()
    packs = len(log)
    log.clear()
    y.sum().backward()
    saved = sorted(n for n in dir(y.grad_fn) if n.startswith("_saved_"))
    print(f"{label:<12} {y.grad_fn.name():<18} packs={packs} unpacks={len(log)} saved={saved}")

log.clear()
with saved_tensors_hooks(lambda t: (log.append("outer"), t)[1], lambda t: t):
    with saved_tensors_hooks(lambda t: (log.append("inner"), t)[1], lambda t: t):
        x * w
    x * w
x * w
print("nested packs:", log)

y = x * w
print("_saved_self", r(y.grad_fn._saved_self), "_saved_other", r(y.grad_fn._saved_other))
e = x.exp()
print("exp _saved_result is e's value:", r(e.grad_fn._saved_result))
