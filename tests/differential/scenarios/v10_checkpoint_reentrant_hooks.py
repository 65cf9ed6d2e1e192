"""v10: checkpoint(use_reentrant=True): a backward pass inside a backward pass.

Intent: the reentrant checkpoint is a custom Function (CheckpointFunctionBackward).
Its forward runs fn under no_grad, so the first forward's tensors do not require
grad and a hook can only be registered in the recomputation; its backward reruns
fn with grad on and calls backward() from inside the outer pass. The trace shows,
in order: tensor hooks and node hooks outside, the recomputation (a forward hook
of a module firing a second time), the inner pass's hooks, final callbacks (one
queued in the inner pass runs when the inner pass ends, before the outer pass
continues; one queued by fn while it is recomputed belongs to the outer pass),
grad mode inside and after, and the gradients, identical to the non-reentrant
variant and to no checkpoint at all.
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
from torch.autograd import Variable

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

def names(node, depth=3):
    """node name with its next_functions, `depth` levels down."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return [node.name(), [names(n, depth - 1) for n, _ in node.next_functions]]


lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0, 0.5], [0.25, 2.0, -0.5]]))
    lin.bias.copy_(torch.tensor([0.1, -0.2]))
calls = {"forward": 0}

def fhook(m, inp, out):
    calls["forward"] += 1
    print("  lin forward hook #%d, grad enabled %s, out requires_grad %s" % (
        calls["forward"], torch.is_grad_enabled(), out.requires_grad))

lin.register_forward_hook(fhook)
in_backward = [False]

def fn(x, scale):
    h = lin(x).tanh()
    print("  fn runs: grad enabled", torch.is_grad_enabled(), "| h.requires_grad", h.requires_grad)
    if h.requires_grad:
        def inner_hook(g):
            print("    tensor hook on h", r(g), "| grad enabled", torch.is_grad_enabled())
            Variable._execution_engine.queue_callback(lambda: print("    callback queued by the hook on h"))
        h.register_hook(inner_hook)
        h.grad_fn.register_prehook(lambda go: print("    prehook of h's node", go[0].grad_fn is None))
        if torch.autograd.graph.Node is not None and in_backward[0]:
            Variable._execution_engine.queue_callback(
                lambda: print("  callback queued by fn during backward"))
    return h * scale

for mode in ("reentrant", "non-reentrant", "plain"):
    print("==", mode)
    calls["forward"] = 0
    lin.zero_grad()
    x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], requires_grad=True)
    x.register_hook(lambda g: print("  x hook", r(g)))
    if mode == "plain":
        y = fn(x, 3.0)
    else:
        y = checkpoint(fn, x, 3.0, use_reentrant=(mode == "reentrant"))
    print("  y node:", names(y.grad_fn, 1))
    y.register_hook(lambda g: print("  y hook", r(g)))
    y.grad_fn.register_hook(lambda gi, go: print("  y node post-hook",
                                                 [None if g is None else r(g) for g in gi]))
    loss = (y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum()

    def outer_pre(go):
        in_backward[0] = True
        Variable._execution_engine.queue_callback(
            lambda: print("  callback queued by the loss node's prehook"))
    loss.grad_fn.register_prehook(outer_pre)
    loss.backward()
    in_backward[0] = False
    print("  after: grad enabled", torch.is_grad_enabled(), "| x.grad", r(x.grad), "| weight.grad",
          r(lin.weight.grad))
