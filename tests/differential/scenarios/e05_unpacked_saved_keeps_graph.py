"""e05: values unpacked through saved-tensor hooks keep their place in the graph.

Intent: a saved non-leaf unpacked through _raw_saved_<name>.register_hooks
or the saved_tensors_hooks context gets its grad_fn back
(y.grad_fn._saved_self.grad_fn is a.grad_fn), a saved output gets the saving
node, a saved leaf shares the leaf's AccumulateGrad, so double backward
through them gives PyTorch's values (a tensor without grad_fn would silently
cut the second-order path). The unpacked tensor is a new object (not the one
unpack returned, not the original); without hooks a saved input, leaf or
Parameter is the very object.
"""
import torch
import torch.nn as nn
a = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.], requires_grad=True)
# raw saved hooks on a non-leaf input
b = a * 2
y = b * b
y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t)
s = y.grad_fn._saved_self
print("raw hooks: grad_fn", s.grad_fn.name() if s.grad_fn else None, s.grad_fn is b.grad_fn, s.requires_grad,
      s is b)
g, = torch.autograd.grad(y.sum(), a, create_graph=True)
g2, = torch.autograd.grad(g.sum(), a)
print("  2nd order", g.tolist(), g2.tolist())
# ctx hooks
packed = {}
def pack(t):
    packed["t"] = t
    return t
ret = {}
def unpack(t):
    ret["u"] = t
    return t
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    b = a * 2
    y = b.exp()
    z = b * w
s = y.grad_fn._saved_result
print("ctx hooks result: grad_fn", s.grad_fn.name() if s.grad_fn else None, s.grad_fn is y.grad_fn,
      s is ret["u"], s is y, packed["t"] is y)
s = z.grad_fn._saved_self
print("ctx hooks self: grad_fn", s.grad_fn.name() if s.grad_fn else None, s.grad_fn is b.grad_fn,
      s is ret["u"], s is b)
s = z.grad_fn._saved_other
print("ctx hooks other (leaf):", s.grad_fn, s is w, s is ret["u"], s.requires_grad, s.is_leaf)
g, = torch.autograd.grad((y + z).sum(), a, create_graph=True)
g2, = torch.autograd.grad(g.sum(), a)
print("  2nd order", [round(v, 4) for v in g.tolist()], [round(v, 4) for v in g2.tolist()])
# without hooks
b = a * 2
z = b * w
print("no hooks: self is b", z.grad_fn._saved_self is b, "other is w", z.grad_fn._saved_other is w)
y = b.exp()
print("no hooks: result is y", y.grad_fn._saved_result is y, y.grad_fn._saved_result.grad_fn is y.grad_fn)
lin = nn.Linear(2, 1)
out = lin(torch.ones(1, 2))
n = out.grad_fn
print(n.name(), [k for k in dir(n) if k.startswith("_saved")])
for k in dir(n):
    if k.startswith("_saved_") and isinstance(getattr(n, k), torch.Tensor):
        print(k, getattr(n, k) is lin.weight)
# unpack returns a different tensor
def unpack2(t):
    return t.detach() * 1
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack2):
    b = a * 2
    y = b * b
s = y.grad_fn._saved_self
print("unpack returns new:", s.grad_fn.name() if s.grad_fn else None, s.requires_grad)
g, = torch.autograd.grad(y.sum(), a, create_graph=True)
g2, = torch.autograd.grad(g.sum(), a)
print("  2nd order", g.tolist(), g2.tolist())
# leaf unpacked through hooks shares the accumulator: second order w.r.t. w
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    y = (a * w) * (a * w)
g, = torch.autograd.grad(y.sum(), a, create_graph=True)
print("  leaf 2nd order wrt w", torch.autograd.grad(g.sum(), w)[0].tolist())
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    y = (a * w)
g, = torch.autograd.grad(y.sum(), a, create_graph=True)
print("  leaf (saved other=w) 2nd order wrt w", torch.autograd.grad(g.sum(), w)[0].tolist())
conv = nn.Conv2d(1, 1, 2)
x = torch.ones(1, 1, 3, 3, requires_grad=True)
out = conv(x)
n = out.grad_fn
print(n.name(), "weight is", n._saved_weight is conv.weight, "input is", n._saved_input is x)
w = torch.tensor([1., 2.], requires_grad=True)
p = nn.Parameter(torch.tensor([1., 2.]))
y = w * p
print("mul leaf self is w", y.grad_fn._saved_self is w, "other is p", y.grad_fn._saved_other is p,
      type(y.grad_fn._saved_other).__name__)
