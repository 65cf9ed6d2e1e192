"""m24: grad_fn.name() for reductions, shape, indexing, matmul and combining ops.

Intent: record the exact node names PyTorch 2.13 gives, including the ones a
re-implementation would not guess (reshape of a contiguous tensor is a
ViewBackward0, of a transposed one an UnsafeViewBackward0 over a
CloneBackward0; x.T is a PermuteBackward0; 1-D @ 1-D is DotBackward0).
"""
import torch
import torch.nn.functional as F

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


m = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)   # [2, 3]
v = torch.tensor([1., 2., 3.], requires_grad=True)
n = torch.tensor([[1., 0.], [0., 1.], [1., 1.]], requires_grad=True)  # [3, 2]
b3 = torch.ones(2, 2, 3, requires_grad=True)

def chain(t, depth=3):
    names = []
    node = t.grad_fn
    while node is not None and depth:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
        depth -= 1
    return " <- ".join(names)

cases = [
    ("m.sum()", lambda: m.sum()), ("m.sum(0)", lambda: m.sum(0)),
    ("m.sum(dim=(0, 1))", lambda: m.sum(dim=(0, 1))),
    ("torch.sum(m)", lambda: torch.sum(m)),
    ("m.mean()", lambda: m.mean()), ("m.mean(1)", lambda: m.mean(1)),
    ("m.max()", lambda: m.max()), ("m.max(1).values", lambda: m.max(1).values),
    ("m.min()", lambda: m.min()), ("m.min(dim=0)[0]", lambda: m.min(dim=0)[0]),
    ("m.view(6)", lambda: m.view(6)), ("m.reshape(3, 2)", lambda: m.reshape(3, 2)),
    ("m.T.reshape(6)", lambda: m.T.reshape(6)), ("m.flatten()", lambda: m.flatten()),
    ("m.transpose(0, 1)", lambda: m.transpose(0, 1)), ("m.T", lambda: m.T),
    ("m.permute(1, 0)", lambda: m.permute(1, 0)),
    ("m.unsqueeze(0)", lambda: m.unsqueeze(0)), ("m.unsqueeze(0).squeeze()",
                                                 lambda: m.unsqueeze(0).squeeze()),
    ("m.unsqueeze(0).squeeze(0)", lambda: m.unsqueeze(0).squeeze(0)),
    ("m.unsqueeze(0).squeeze((0,))", lambda: m.unsqueeze(0).squeeze((0,))),
    ("v.expand(2, 3)", lambda: v.expand(2, 3)),
    ("m @ n", lambda: m @ n), ("m.matmul(n)", lambda: m.matmul(n)), ("torch.matmul(m, n)",
                                                                     lambda: torch.matmul(m, n)),
    ("m @ v", lambda: m @ v), ("v @ v", lambda: v @ v), ("v @ n", lambda: v @ n),
    ("b3 @ n", lambda: b3 @ n),
    ("m[0]", lambda: m[0]), ("m[:, 1:]", lambda: m[:, 1:]), ("m[[1, 0]]", lambda: m[[1, 0]]),
    ("m[0, 1]", lambda: m[0, 1]),
    ("m.softmax(-1)", lambda: m.softmax(-1)), ("m.log_softmax(1)", lambda: m.log_softmax(1)),
    ("F.softmax(m, 0)", lambda: F.softmax(m, 0)),
    ("m.masked_fill(m > 2, 0)", lambda: m.masked_fill(m > 2, 0.)),
    ("torch.where(m > 2, m, 0.)", lambda: torch.where(m > 2, m, 0.)),
    ("torch.cat([m, m])", lambda: torch.cat([m, m])), ("torch.cat((m, m), 1)", lambda: torch.cat((m, m), 1)),
    ("torch.stack([v, v])", lambda: torch.stack([v, v])),
    ("v.unbind()[1]", lambda: v.unbind()[1]), ("m.unbind(1)[0]", lambda: m.unbind(1)[0]),
]
for label, fn in cases:
    y = fn()
    print(f"{label:<30} {chain(y):<55} shape {tuple(y.shape)}")
