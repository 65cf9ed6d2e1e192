"""e04: custom Functions with non-tensor inputs and outputs anywhere; detach_ on saved tensors.

Intent: forward(ctx, x, a, y) may return (x * a, a, y * a): every output has
a gradient slot (a tensor's output_nr counts the non-tensor outputs before
it), backward receives None for a non-tensor output and returns None for a
non-tensor input. Materialized gradients are plain zeros even under
create_graph. A saved non-leaf input that is detached in place makes the
backward formula raise PyTorch's error, while node._saved_self still shows
it; a custom Function's ctx.saved_tensors does not raise.
"""
import torch
def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, a, y):
        ctx.a = a
        return x * a, a, y * a
    @staticmethod
    def backward(ctx, gx, ga, gy):
        print("  backward got", gx, ga, gy)
        return gx * ctx.a, None, gy * ctx.a
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3.], requires_grad=True)
p, a, q = F.apply(x, 3.0, y)
print(type(a).__name__, a, p.grad_fn.name(), q.grad_fn is p.grad_fn, q.output_nr)
(p.sum() + q.sum()).backward()
print(x.grad, y.grad)
class G(torch.autograd.Function):
    @staticmethod
    def forward(ctx, n, x):
        return n, x * n, "s"
    @staticmethod
    def backward(ctx, gn, gx, gs):
        print("  G backward", gn, gx, gs)
        return None, gx * 2
x = torch.tensor([1., 2.], requires_grad=True)
n, z, s = G.apply(2, x)
print(n, s, z.grad_fn.name())
z.sum().backward()
print(x.grad)
# materialize with create_graph
class M(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("  M backward g2", g2, g2.requires_grad)
        return g1 * 2 + g2 * 3
x = torch.tensor([1., 2.], requires_grad=True)
u, v = M.apply(x)
g, = torch.autograd.grad(u.sum(), x, create_graph=True)
print(g, g.requires_grad)
u, v = M.apply(x)
g, = torch.autograd.grad(u.sum(), x)
# detach_ on saved
class S(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 1
c = b.exp()
b.detach_()
show_err("detach_ saved input (exp saves result, mul)", lambda: c.sum().backward())
b = a * 1
c = b * b
b.detach_()
show_err("detach_ saved input of mul", lambda: c.sum().backward())
b = a * 1
c = S.apply(b)
b.detach_()
show_err("detach_ saved input of custom fn", lambda: c.sum().backward())
b = a * 1
c = b.exp()
c.detach_()
show_err("detach_ saved output (exp)", lambda: c.sum().backward())
b = a * 1
c = b.exp()
d = c * 2
c.detach_()
show_err("detach_ saved output (exp) then used", lambda: d.sum().backward())
y = a[torch.tensor([0, 1])]
print(sorted(n for n in dir(y.grad_fn) if n.startswith("_saved")))
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 1
c = b * b
b.detach_()
show_err("_saved_self after detach_", lambda: print(c.grad_fn._saved_self.grad_fn.name(),
                                                    c.grad_fn._saved_self.requires_grad))
b = a * 1
c = b * b
c.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
b.detach_()
show_err("hooked saved after detach_", lambda: c.sum().backward())
b = a * 1
c = b * b
b.requires_grad_(False) if False else None
x = torch.tensor([1., 2.])
c = x * a
x.detach_()
show_err("detach_ a leaf saved", lambda: c.sum().backward())
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    b = a * 1
    c = b * b
b.detach_()
show_err("ctx hooks, detach_ saved input", lambda: c.sum().backward())
