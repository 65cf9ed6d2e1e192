"""e06: saved-tensor hooks and create_graph=True backward.

Intent: hooks active during a create_graph backward pack what the backward
formulas save (the double-backward graph's saved values), hooks active at
forward pack the forward's; the second backward unpacks through whichever
pair packed each value, whatever is active then. With hooks at forward, at
backward, at both or at neither, the second-order gradient (a.grad) is
PyTorch's, including with pack hooks that return a clone or a non-tensor.
"""
import torch
import contextlib
PACKCLONE = True
log = []
def pack(t):
    log.append(("pack", tuple(t.shape)))
    return t.detach().clone() if isinstance(t, torch.Tensor) and PACKCLONE else t
def unpack(t):
    log.append(("unpack", tuple(t.shape)))
    return t.detach().clone() if isinstance(t, torch.Tensor) and PACKCLONE else t
def H():
    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)
for fwd in (False, True):
    for bwd in (False, True):
        log.clear()
        a = torch.tensor([1., 2.], requires_grad=True)
        with H() if fwd else contextlib.nullcontext():
            y = (a.sin() * a).sum()
        with H() if bwd else contextlib.nullcontext():
            g, = torch.autograd.grad(y, a, create_graph=True)
        n1 = len(log)
        g.sum().backward()
        print("fwd", fwd, "bwd", bwd, "g", [round(v, 4) for v in g.tolist()], "a.grad",
              None if a.grad is None else [round(v, 4) for v in a.grad.tolist()],
              "packs/unpacks in pass1", sum(1 for e in log[:n1] if e[0] == "pack"),
              sum(1 for e in log[:n1] if e[0] == "unpack"),
              "in pass2", sum(1 for e in log[n1:] if e[0] == "pack"),
              sum(1 for e in log[n1:] if e[0] == "unpack"))
# hooks active around the second backward: no effect
a = torch.tensor([1., 2.], requires_grad=True)
with H():
    y = (a.exp() * a).sum()
    g, = torch.autograd.grad(y, a, create_graph=True)
    print("grad_fn of g", g.grad_fn.name())
    log.clear()
    g2, = torch.autograd.grad(g.sum(), a)
print("g2", [round(v, 4) for v in g2.tolist()], "log", log)
# a pack hook returning something that is not a tensor
def pack_np(t):
    return ("box", t.detach().clone())
def unpack_np(b):
    return b[1]
a = torch.tensor([1., 2.], requires_grad=True)
y = (a.sin() * a.sin()).sum()
with torch.autograd.graph.saved_tensors_hooks(pack_np, unpack_np):
    g, = torch.autograd.grad(y, a, create_graph=True)
g.sum().backward()
print("boxed", [round(v, 4) for v in g.tolist()], [round(v, 4) for v in a.grad.tolist()])
