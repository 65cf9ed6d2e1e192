"""h01: the order in which one op's saved tensors reach a pack hook.

Found by tests/test_random_hook_programs.py (shrunk): a saved_tensors_hooks pair around
``a / (b.sigmoid() + 0.5)``. DivBackward0 and MaximumBackward0 save ``other`` before
``self``, so the pack hook sees the divisor first (MulBackward0 does the same). A trap
for a re-implementation that saves the operands in argument order: the gradients are
right, only the hook trace shows it. ``self`` of a division is saved only when the
divisor needs a gradient.
"""
import torch
from torch.autograd.graph import saved_tensors_hooks

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

def pack(x):
    print("  pack", r(x))
    return x

def unpack(x):
    print("  unpack", r(x))
    return x

for label, f in (("div", lambda a, b: a / (b.sigmoid() + 0.5)),
                 ("mul", lambda a, b: a * b),
                 ("maximum", lambda a, b: torch.maximum(a, b))):
    for ra, rb in ((True, True), (True, False), (False, True)):
        a = torch.tensor([0.25, -1.5], dtype=torch.float64, requires_grad=ra)
        b = torch.tensor([1.0, 0.5], dtype=torch.float64, requires_grad=rb)
        print(label, "a requires grad:", ra, "b requires grad:", rb)
        with saved_tensors_hooks(pack, unpack):
            y = f(a, b)
        y.sum().backward()
        print("  grads", None if a.grad is None else r(a.grad), None if b.grad is None else r(b.grad))
