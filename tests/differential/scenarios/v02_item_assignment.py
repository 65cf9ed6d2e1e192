"""v02: item assignment `t[key] = value` in a graph.

Intent: a key of ints and slices writes through a view (`t[key].copy_(value)`),
so t's grad_fn becomes CopySlices whose second edge is the value's node (None for
a float or a tensor without grad). A mask or index-array key is `index_put_`
directly on t: IndexPutBackward0 (accumulate False). `x[idx] += y` is a read
(IndexBackward0), an add and an index_put_. The trap: the overwritten elements
get no gradient from before the write; the value gets exactly their gradient
(summed when it was broadcast). On a leaf requiring grad every form is an error,
the ints-and-slices form naming "a view of a leaf".
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

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

def run(label, assign):
    x.grad = None
    y.grad = None
    h = x * 2
    assign(h)
    print(label, "| h", r(h), "| version", h._version)
    print("  node:", names(h.grad_fn, 2))
    (h * w).sum().backward()
    print("  x.grad", r(x.grad), "y.grad", None if y.grad is None else r(y.grad))

run("h[0] = y", lambda h: h.__setitem__(0, y))
run("h[0] = y.sum() (broadcast)", lambda h: h.__setitem__(0, y.sum()))
run("h[0, 1] = 7.0", lambda h: h.__setitem__((0, 1), 7.0))
run("h[:, 1:] = 0.5", lambda h: h.__setitem__((slice(None), slice(1, None)), 0.5))
run("h[1] = tensor without grad", lambda h: h.__setitem__(1, torch.tensor([-1.0, -2.0, -3.0])))
run("h[..., 2] = y[:2]", lambda h: h.__setitem__((Ellipsis, 2), y[:2]))

def masked(h):
    h[h > 5] = 0
run("h[h > 5] = 0", masked)
h = x * 2
h[h > 5] = 0
print("  saved accumulate", h.grad_fn._saved_accumulate)

def index_add(h):
    idx = torch.tensor([0, 2])
    h[:, idx] += y[:2]
run("h[:, idx] += y[:2]", index_add)

def index_rows(h):
    h[torch.tensor([1, 0])] = y
run("h[[1, 0]] = y", index_rows)

def twice(h):
    h[0] = 1.0
    h[0, 0] = y[2]
run("h[0] = 1.0 then h[0, 0] = y[2]", twice)

b = torch.zeros(2, 3)
b[1] = y
print("zeros b, b[1] = y:", b.requires_grad, names(b.grad_fn, 1))
(b * w).sum().backward()
print("  y.grad", r(y.grad))

show_err("x[0] = 1.0 on a leaf", lambda: x.__setitem__(0, 1.0))
show_err("x[x > 2] = 0 on a leaf", lambda: x.__setitem__(x > 2, 0.0))
with torch.no_grad():
    c = x.detach().clone()
    c[0] = 9.0
print("under no_grad, detached clone:", r(c), c.requires_grad)
