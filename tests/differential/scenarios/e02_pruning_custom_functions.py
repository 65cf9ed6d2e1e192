"""e02: pruning with custom Functions, and a root that reaches no input.

Intent: autograd.grad(..., inputs) and backward(inputs=...) run only the
nodes on a path to a requested input. A custom Function's backward is user
code with side effects, so running it when it leads nowhere is visible. The
root is no exception: when it cannot reach any input it is visited (its
tensor hooks run) but not executed (no node pre/post hooks, no formula).
"""
import torch

class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        print("  F.backward ran")
        return g * 2

class G(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y, x + y
    @staticmethod
    def backward(ctx, g1, g2):
        print("  G.backward ran, needs_input_grad", ctx.needs_input_grad)
        return g1, g2

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
out = (F.apply(a) + b * 3).sum()
print("grad wrt b (F leads only to a)")
print(" ", torch.autograd.grad(out, b, retain_graph=True))
print("backward(inputs=[b])")
out.backward(inputs=[b], retain_graph=True)
print(" ", b.grad, a.grad)
print("grad wrt a")
print(" ", torch.autograd.grad(out, a, retain_graph=True))

h = F.apply(a)
z = h * 2
out = (z + b * 3).sum()
print("grad wrt z, a non-leaf above F")
print(" ", torch.autograd.grad(out, z, retain_graph=True))
print("backward(inputs=[z])")
out.backward(inputs=[z], retain_graph=True)
print(" ", z.grad)

u, v = G.apply(a, b)
w = u.exp()
out = (w + v).sum()
print("G: grad wrt w and v (above G)")
print(" ", torch.autograd.grad(out, [w, v], retain_graph=True))
print("G: grad wrt b")
print(" ", torch.autograd.grad(out, b, retain_graph=True))

c = torch.tensor([1.], requires_grad=True)
print("F as the root, input unreachable")
r = F.apply(a)
print(" ", torch.autograd.grad(r, c, grad_outputs=torch.ones(2), allow_unused=True))

print("a root that reaches no input: tensor hooks yes, node hooks no")
y = (a * 2).sum()
y.register_hook(lambda g: print("  root tensor hook", g))
y.grad_fn.register_prehook(lambda g: print("  root pre hook"))
y.grad_fn.register_hook(lambda gi, go: print("  root post hook"))
print(" ", torch.autograd.grad(y, c, allow_unused=True, retain_graph=True))
print("two roots (GraphRoot), none reaches c")
print(" ", torch.autograd.grad([y, (a * 3).sum()], c, allow_unused=True, retain_graph=True))
print("one of two inputs reachable: the root runs")
print(" ", torch.autograd.grad(y, [c, a], allow_unused=True, retain_graph=True))
print("backward(inputs=[c])")
y.backward(inputs=[c])
print(" ", c.grad, a.grad)
