"""a02: sort, index_add_, abs(t), the logits BCE and L1 losses, SavedTensor.data and
IndexBackward0._raw_saved_indices.

Intent: each is a small API hook code meets. sort's gradient goes back to where each
value came from (a permutation: a hook sees it scattered), ties keep their order and NaN
sorts as the largest value; stable= picks the other node (SortBackward1). index_add_
with repeated indices adds up, and its source's gradient is gathered back (times alpha).
BCEWithLogits saves weight and pos_weight, which are buffers of the module. L1Loss is made
of ops (Mean over Abs over Sub), not one node. SavedTensor.data shows what is stored
without unpacking (the packed value under hooks, None once freed). The index tensors of
x[idx] are saved one SavedTensor per dimension, so pack hooks see each.
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def r(t, n=4):
    v = t.tolist() if hasattr(t, "tolist") else t

    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


print("== sort")
x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 4.0, 0.5]], requires_grad=True)
s = x.sort()
print(type(s).__name__, r(s.values), s.indices.tolist(), s.values.grad_fn.name())
n = s.values.grad_fn
print("saved", n._saved_dim, n._saved_self_sym_sizes, n._saved_indices.tolist(),
      sorted(a for a in dir(n) if "saved" in a))
s.values.register_hook(lambda g: print("hook on sorted values", r(g)))
(s.values * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print("x.grad", r(x.grad))
d = torch.sort(x, dim=0, descending=True)
print("dim=0 descending", r(d.values), d.indices.tolist(), d.values.grad_fn.name(),
      d.values.grad_fn._saved_dim)
print("stable", x.sort(stable=True).values.grad_fn.name(),
      x.sort(descending=True, stable=False).indices.tolist())
print("nan", torch.tensor([1.0, float("nan"), 0.0, 1.0]).sort(descending=True).indices.tolist(),
      torch.tensor([1.0, float("nan"), 0.0]).sort().indices.tolist())
v, i = torch.tensor([2.0, 0.0, 1.0]).sort(0, True)
print("unpacked", v.tolist(), i.tolist())
print(torch.tensor([[2.0, 1.0]]).sort())
show_err("sort dim 2", lambda: x.sort(2))
xx = torch.tensor([1.0, 4.0, 2.0], requires_grad=True)
g1, = torch.autograd.grad(xx.sort(descending=True).values[0] ** 2, xx, create_graph=True)
g2, = torch.autograd.grad(g1.sum(), xx)
print("double backward through sort", r(g1), r(g2))

print("== index_add_")
a = torch.zeros(3, 2, requires_grad=True)
src = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
idx = torch.tensor([0, 2, 0])
b = a.clone().index_add_(0, idx, src, alpha=2)
n = b.grad_fn
print(r(b), n.name(), n._saved_dim, n._saved_alpha, n._saved_index.tolist(), n._saved_source_dim,
      r(n._saved_source), [type(f).__name__ for f, _ in n.next_functions])
(b * torch.tensor([[1.0, 10.0], [100.0, 1000.0], [0.5, 0.25]])).sum().backward()
print("a.grad", r(a.grad), "src.grad", r(src.grad))
c = torch.index_add(torch.ones(2, 3), 1, torch.tensor([2, 2]), torch.ones(2, 2))
print("out of place", r(c), c.grad_fn)
n2 = a.clone().index_add_(0, idx, src.detach()).grad_fn
print("source without grad: saved index", n2._saved_index, "saved source", n2._saved_source)
show_err("float index", lambda: torch.zeros(3).index_add_(0, torch.tensor([0.0]), torch.ones(1)))
show_err("too many indices", lambda: torch.zeros(3, 2).index_add_(0, idx, torch.ones(2, 2)))
show_err("index out of bounds", lambda: torch.zeros(3).index_add_(0, torch.tensor([0, 3, 1]), torch.ones(3)))
show_err("index out of bounds 2-d",
         lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([0, -1, 1]), torch.ones(3, 2)))
show_err("2-d index", lambda: torch.zeros(3).index_add_(0, torch.tensor([[0, 1]]), torch.ones(2)))
show_err("source shape", lambda: torch.zeros(3, 2).index_add_(0, idx, torch.ones(3, 3)))
show_err("leaf in place", lambda: a.index_add_(0, idx, src))

print("== abs")
y = torch.tensor([-1.5, 0.0, 2.0], requires_grad=True)
z = abs(y)
print(r(z), z.grad_fn.name())
z.sum().backward()
print("grad", r(y.grad))

print("== BCEWithLogits")
logits = torch.tensor([[0.5, -1.0, 2.0], [0.0, 30.0, -30.0]], requires_grad=True)
target = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], requires_grad=True)
weight = torch.tensor([1.0, 2.0, 0.5])
pos_weight = torch.tensor([2.0, 1.0, 3.0])
for kw in [{}, {"weight": weight}, {"pos_weight": pos_weight}, {"weight": weight, "pos_weight": pos_weight}]:
    for reduction in ["mean", "sum", "none"]:
        logits.grad = target.grad = None
        loss = F.binary_cross_entropy_with_logits(logits, target, reduction=reduction, **kw)
        loss.sum().backward()
        print(sorted(kw), reduction, r(loss), "grads", r(logits.grad), r(target.grad))
node = F.binary_cross_entropy_with_logits(logits, target, weight=weight, pos_weight=pos_weight).grad_fn
print(node.name(), node._saved_reduction, r(node._saved_weight), r(node._saved_pos_weight),
      node._saved_self is logits, len(node.next_functions), sorted(a for a in dir(node) if "saved" in a))
print("no weights saved", F.binary_cross_entropy_with_logits(logits, target).grad_fn._saved_weight)
crit = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(crit, dict(crit.state_dict()),
      [name for name, _ in nn.BCEWithLogitsLoss(weight=weight).named_buffers()])
print("module", r(crit(logits, target)))
show_err("size mismatch", lambda: F.binary_cross_entropy_with_logits(logits, target[0]))
show_err("weight requires grad",
         lambda: F.binary_cross_entropy_with_logits(logits, target, weight=weight.clone().requires_grad_()))
show_err("bad reduction", lambda: F.binary_cross_entropy_with_logits(logits, target, reduction="avg"))
lg = torch.tensor([0.3, -0.7], requires_grad=True)
g1, = torch.autograd.grad(F.binary_cross_entropy_with_logits(lg, torch.tensor([1.0, 0.0]),
                                                                pos_weight=torch.tensor([2.0, 2.0])),
                          lg, create_graph=True)
g2, = torch.autograd.grad(g1.sum(), lg)
print("second derivative", r(g1), r(g2))

print("== L1Loss")
p = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
q = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
for reduction in ["mean", "sum", "none"]:
    p.grad = None
    loss = nn.L1Loss(reduction=reduction)(p, q)
    loss.sum().backward()
    print(reduction, r(loss), loss.grad_fn.name(), r(p.grad))
loss = F.l1_loss(p, q)
print("graph", loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name(),
      loss.grad_fn.next_functions[0][0].next_functions[0][0].name(), nn.L1Loss())
print("weighted", r(F.l1_loss(p, q, weight=torch.tensor([[1.0, 2.0], [3.0, 4.0]]))))
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    print("broadcast", r(F.l1_loss(p, torch.tensor([1.0, 1.0]))))
print([str(w.message) for w in ws])
show_err("bad reduction", lambda: F.l1_loss(p, q, reduction="avg"))

print("== SavedTensor.data")
u = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
m = u * w
raw = m.grad_fn._raw_saved_other
print("input", raw.data, raw.data is w)
with torch.no_grad():
    w.mul_(2)
print("after in-place (no version check)", raw.data.tolist())
show_err("unpack", lambda: m.grad_fn._saved_other)
e = u.exp()
out_raw = e.grad_fn._raw_saved_result
print("output", r(out_raw.data), out_raw.data.requires_grad, out_raw.data.grad_fn)
out_raw.register_hooks(lambda t: t * 10, lambda t: t / 10)
print("packed", r(out_raw.data), "unpacked", r(e.grad_fn._saved_result))
with torch.autograd.graph.saved_tensors_hooks(lambda t: "packed value", lambda p: torch.ones(2)):
    h = u * u
print("packed by context hooks:", h.grad_fn._raw_saved_self.data)
k = u * 2
print("wrapped number", k.grad_fn._raw_saved_other.data)
e.sum().backward()
print("freed", out_raw.data)

print("== _raw_saved_indices")
base = torch.ones(2, 3, requires_grad=True)


def pack(t):
    print("  pack", tuple(t.shape), t.tolist())
    return t


def unpack(t):
    print("  unpack", tuple(t.shape))
    return t


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    picked = base[:, torch.tensor([0, 2])]
    masked = base[torch.tensor([True, False])]
    put = base.clone()
    put[torch.tensor([1])] = 5.0
node = picked.grad_fn
raws = node._raw_saved_indices
print(isinstance(raws, tuple), len(raws), [x.data for x in raws], node._saved_indices)
print("mask", masked.grad_fn._saved_indices)
print(put.grad_fn.name(), put.grad_fn._saved_indices, len(put.grad_fn._raw_saved_indices))
show_err("second register_hooks", lambda: node._raw_saved_indices[1].register_hooks(pack, unpack) or
         node._raw_saved_indices[1].register_hooks(pack, unpack))
(picked.sum() + put.sum()).backward()
print("base.grad", base.grad.tolist())
