"""a05: the smaller names of torch.autograd that hook code reaches for.

Intent: get_gradient_edge / GradientEdge (the edge a tensor's gradient flows into: its
grad_fn and output number, or a leaf's AccumulateGrad), the grad_mode
module's context managers, FunctionCtx and once_differentiable in a custom Function,
detect_anomaly as a context manager, the reentrant CheckpointFunction called directly and
set_checkpoint_early_stop. Each is printed the way a script inspects it. (gradcheck and
gradgradcheck are a07.)
"""
import torch
import torch.autograd.grad_mode as grad_mode
from torch.autograd.function import FunctionCtx, once_differentiable
from torch.autograd.graph import GradientEdge, get_gradient_edge
from torch.utils.checkpoint import CheckpointFunction, checkpoint, set_checkpoint_early_stop


def r(t, n=4):
    v = t.tolist() if hasattr(t, "tolist") else t

    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


print("== get_gradient_edge")
x = torch.tensor([1.0, 2.0], requires_grad=True)
a, b = x.exp().unbind()
edge = get_gradient_edge(b)
print(type(edge).__name__, isinstance(edge, GradientEdge), isinstance(edge, tuple), edge.node.name(),
      edge.output_nr, edge.node is b.grad_fn)
leaf_edge = get_gradient_edge(x)
print("leaf", leaf_edge.node.name(), leaf_edge.output_nr, leaf_edge.node.variable is x)
node, nr, _ = edge
print("fields", GradientEdge._fields, "unpacked", node.name(), nr)

print("== grad_mode module")
with grad_mode.no_grad():
    print("no_grad", torch.is_grad_enabled(), (x * 2).requires_grad)
    with grad_mode.enable_grad():
        print("enable_grad", torch.is_grad_enabled())
with grad_mode.set_grad_enabled(False):
    print("set_grad_enabled(False)", torch.is_grad_enabled())
with grad_mode.inference_mode():
    print("inference_mode", torch.is_inference_mode_enabled(), (x * 2).requires_grad)


print("== FunctionCtx and once_differentiable")


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        print("ctx is a FunctionCtx:", isinstance(ctx, FunctionCtx))
        ctx.save_for_backward(t)
        return t ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        t, = ctx.saved_tensors
        print("backward runs with grad mode", torch.is_grad_enabled())
        return 3 * t ** 2 * g


y = Cube.apply(x)
y.sum().backward()
print("grad", r(x.grad), y.grad_fn.name())

print("== detect_anomaly")
x.grad = None
with torch.autograd.detect_anomaly():
    (x.exp() * 2).sum().backward()
with torch.autograd.set_detect_anomaly(False):
    (x * 3).sum().backward()
print("backward under anomaly mode", r(x.grad))

print("== CheckpointFunction, set_checkpoint_early_stop")
w = torch.tensor([0.5, -1.5], requires_grad=True)


def block(t):
    print("  block runs")
    return (t * w).tanh()


out = CheckpointFunction.apply(block, True, x)
print(out.grad_fn.name())
out.sum().backward()
print("w.grad", r(w.grad))
with set_checkpoint_early_stop(False):
    out = checkpoint(block, x, use_reentrant=False)
out.sum().backward()
print("w.grad", r(w.grad))
