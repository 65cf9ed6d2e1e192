"""h02: a multi-grad hook over a leaf, during torch.autograd.grad.

Found by tests/test_random_hook_programs.py (shrunk). A mode="all" multi-grad hook asks
the engine, for each of its tensors, whether the current pass will reach that tensor's
node. PyTorch refuses the question for a leaf under autograd.grad ("A leaf node was
passed to _will_engine_execute_node ...") only when the leaf's AccumulateGrad is one of
the nodes the pass captures at; a leaf the pass does not ask for simply "will not
execute", and the hook fires with None in its place. The trap: refusing for every leaf
as soon as the pass is an autograd.grad.
"""
import torch
from torch.autograd.graph import register_multi_grad_hook

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

a = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([0.5, -1.0], requires_grad=True)
b = a * 2 + c
register_multi_grad_hook((a, b), lambda gs: print("  multi-grad hook (a, b)",
                                                  [None if g is None else r(g) for g in gs]))

print("autograd.grad w.r.t. b (a not asked for):")
print("  result", r(torch.autograd.grad(b.sum(), [b], retain_graph=True)[0]))
print("autograd.grad w.r.t. c (a not asked for):")
print("  result", r(torch.autograd.grad(b.sum(), [c], retain_graph=True)[0]))
print("autograd.grad w.r.t. a (the leaf is captured):")
show_err("  grad", lambda: torch.autograd.grad(b.sum(), [a], retain_graph=True))
print("backward(inputs=[a]):")
b.sum().backward(inputs=[a], retain_graph=True)
print("  a.grad", r(a.grad), "c.grad", c.grad)
print("backward():")
b.sum().backward()
print("  a.grad", r(a.grad), "c.grad", r(c.grad))
