"""e07: hooks on the graph that create_graph=True builds fire in the second backward.

Intent: the first-order gradient is an ordinary non-leaf, so every hook level
works on it in the second pass: a tensor hook and retain_grad on the grad,
node pre/post hooks on its grad_fn (AddBackward0 / CopyBackwards), tensor and
post-accumulate hooks on the leaves, multi-grad hooks (all/any) over several
first-order grads with and without inputs=, node hooks across the
double-backward nodes (TanhBackwardBackward0) in PyTorch's order.
"""
import torch
import warnings
warnings.simplefilter("ignore")
def r(t):
    return [round(v, 4) + 0.0 for v in t.tolist()]
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
y = (a * a * b).sum()
print("1. tensor hook on the first-order grad")
g, = torch.autograd.grad(y, a, create_graph=True)
print("  g.grad_fn", g.grad_fn.name(), [n.name() if n else None for n, _ in g.grad_fn.next_functions])
g.register_hook(lambda t: print("  hook on g", r(t)))
g.retain_grad()
g.grad_fn.register_prehook(lambda go: print("  g.grad_fn pre hook", [r(x) for x in go]))
g.grad_fn.register_hook(lambda gi, go: print("  g.grad_fn post hook",
                                             [None if x is None else r(x) for x in gi], [r(x) for x in go]))
a.register_post_accumulate_grad_hook(lambda p: print("  post-acc a", r(p.grad)))
b.register_post_accumulate_grad_hook(lambda p: print("  post-acc b", r(p.grad)))
b.register_hook(lambda t: print("  tensor hook b", r(t)))
(g * torch.tensor([1., 10.])).sum().backward(retain_graph=True)
print("  g.grad", r(g.grad), "a.grad", r(a.grad), "b.grad", r(b.grad))

print("2. backward(create_graph=True) then a 2nd pass through a.grad")
a2 = torch.tensor([1., 2.], requires_grad=True)
b2 = torch.tensor([3., 4.], requires_grad=True)
y = (a2 * a2 * b2).sum()
order = []
a2.register_post_accumulate_grad_hook(lambda p: order.append(("post-acc a2", r(p.grad))))
y.backward(create_graph=True)
print("  pass 1", order, "a2.grad.grad_fn", a2.grad.grad_fn.name())
order.clear()
ga = a2.grad
ga.register_hook(lambda t: order.append(("hook on a2.grad", r(t))))
ga.grad_fn.register_prehook(lambda go: order.append(("a2.grad.grad_fn pre", [r(x) for x in go])))
a2.grad = None
ga.sum().backward()
print("  pass 2", order)
print("  a2.grad", r(a2.grad), "b2.grad", r(b2.grad))

print("3. multi-grad hook over first-order grads")
a3 = torch.tensor([1., 2.], requires_grad=True)
b3 = torch.tensor([3., 4.], requires_grad=True)
y = (a3 * a3 * b3 * b3).sum()
ga, gb = torch.autograd.grad(y, [a3, b3], create_graph=True)
torch.autograd.graph.register_multi_grad_hook(
    (ga, gb), lambda gs: print("  all:", [None if x is None else r(x) for x in gs]))
torch.autograd.graph.register_multi_grad_hook((ga, gb), lambda g_: print("  any:", r(g_)), mode="any")
(ga.sum() + gb.sum()).backward(retain_graph=True)
print("  a3.grad", r(a3.grad), "b3.grad", r(b3.grad))
print("  only ga:")
ga.sum().backward(inputs=[a3])
print("  a3.grad", r(a3.grad))

print("4. hooks on the double-backward graph fire in order")
x = torch.tensor([0.5, 1.5], requires_grad=True)
z = x.tanh().sum()
gx, = torch.autograd.grad(z, x, create_graph=True)
n = gx.grad_fn
events = []
def walk(node, depth=0):
    if node is None or depth > 3:
        return
    node.register_prehook(lambda go, nm=node.name(): events.append("pre " + nm))
    node.register_hook(lambda gi, go, nm=node.name(): events.append("post " + nm))
    for nxt, _ in node.next_functions:
        walk(nxt, depth + 1)
walk(n)
g2, = torch.autograd.grad(gx.sum(), x)
print("  ", events)
print("  g2", r(g2))
print("5. a hook registered during the first pass on the gradient it receives")
a = torch.tensor([1., 2.], requires_grad=True)
h = a * a
later = []
def first(g):
    print("  first pass hook, g requires grad", g.requires_grad, g.grad_fn.name() if g.grad_fn else None)
    if g.requires_grad:
        g.register_hook(lambda t: print("  hook on the grad, 2nd pass", r(t)))
        later.append(g)
h.register_hook(first)
y = (h * h).sum()
ga, = torch.autograd.grad(y, a, create_graph=True)
ga.sum().backward()
print("  a.grad", r(a.grad))

print("6. custom Function with a differentiable backward")
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print("  Sq.backward, grad mode", torch.is_grad_enabled())
        return 2 * x * g
a = torch.tensor([1., 3.], requires_grad=True)
y = Sq.apply(a).sum()
g, = torch.autograd.grad(y, a, create_graph=True)
print("  g.grad_fn", g.grad_fn.name())
g.grad_fn.register_prehook(lambda go: print("  pre", g.grad_fn.name()))
g.register_hook(lambda t: print("  hook on g", r(t)))
g.sum().backward()
print("  a.grad", r(a.grad))

print("7. retain_grad on an intermediate during the 2nd pass of backward(create_graph)")
a = torch.tensor([1., 2.], requires_grad=True)
h = a.exp()
h.retain_grad()
(h * h).sum().backward(create_graph=True)
print("  h.grad", r(h.grad), "requires grad", h.grad.requires_grad,
      h.grad.grad_fn.name() if h.grad.grad_fn else None)
hg = h.grad
hg.register_hook(lambda t: print("  hook on h.grad", r(t)))
a.grad = None
hg.sum().backward()
print("  a.grad", r(a.grad))

print("8. node hooks of the first-order graph: grad_outputs require grad")
a = torch.tensor([1., 2.], requires_grad=True)
y = (a.sin() * 2).sum()
y.grad_fn.next_functions[0][0].register_hook(
    lambda gi, go: print("  MulBackward0 post", [x.requires_grad for x in gi if x is not None],
                         [x.requires_grad for x in go]))
(a.sin() * 2)
g, = torch.autograd.grad(y, a, create_graph=True)
print("  g", r(g))
