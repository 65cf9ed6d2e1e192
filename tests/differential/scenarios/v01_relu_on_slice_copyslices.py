"""v01: relu_ on a slice of a non-leaf: the base's history is rewritten (CopySlices).

Intent: `h[:, :2].relu_()` writes into h's memory, so h's grad_fn becomes
torch::autograd::CopySlices (its next edge is h's old MulBackward0), and the view's
grad_fn is regenerated as AsStridedBackward0 pointing at CopySlices. The trap: the
gradient of h must pass through relu for the first two columns only, and a tensor
hook registered on the view *before* the in-place sits on the orphaned
SliceBackward0 and never fires; hooks on h registered before stay with
MulBackward0 (they see the gradient after CopySlices); retain_grad follows the
tensors. Sequence numbers: the in-place node, CopySlices, then AsStridedBackward0.
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

def names(node, depth=3):
    """node name with its next_functions, `depth` levels down."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return [node.name(), [names(n, depth - 1) for n, _ in node.next_functions]]

x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]], requires_grad=True)
h = x * 2
h.register_hook(lambda g: print("  h hook (before)", r(g)))
h.retain_grad()
v = h[:, :2]
print("view node:", v.grad_fn.name(), "| v._base is h:", v._base is h, "| versions", h._version, v._version)
v.register_hook(lambda g: print("  v hook (before) NEVER", r(g)))
v.retain_grad()
out = v.relu_()
print("relu_ returns the view:", out is v, "| versions", h._version, v._version)
print("h:", names(h.grad_fn))
print("v:", names(v.grad_fn))
print("h values", r(h))
seq = [h.grad_fn._sequence_nr() - x.mul(1).grad_fn._sequence_nr(),
       v.grad_fn._sequence_nr() - h.grad_fn._sequence_nr()]
print("AsStrided after CopySlices:", seq[1] > 0)
print("saved geometry", v.grad_fn._saved_size, v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset)
h.register_hook(lambda g: print("  h hook (after)", r(g)))
v.register_hook(lambda g: print("  v hook (after)", r(g)))
w = torch.arange(6.0).view(2, 3)
print("backward of (h * w).sum(): v not used")
(h * w).sum().backward(retain_graph=True)
print("  x.grad", r(x.grad), "h.grad", r(h.grad), "v.grad", v.grad)
x.grad = None
print("backward of h.sum() + (v * 10).sum()")
(h.sum() + (v * 10).sum()).backward()
print("  x.grad", r(x.grad), "h.grad", r(h.grad), "v.grad", r(v.grad))
print("is_leaf", v.is_leaf, h.is_leaf, "requires_grad", v.requires_grad)
