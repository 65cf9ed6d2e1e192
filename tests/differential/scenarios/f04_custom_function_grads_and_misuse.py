"""f04: what a custom Function's backward may receive and return, and misuse errors.

Intent (issue 27 §3):
- backward may return extra trailing Nones (PyTorch's docs allow them; they are
  dropped); extra tensors, too few gradients, a non-None gradient for a non-tensor
  input, or a non-tensor gradient (str, int, list) are PyTorch's RuntimeErrors;
- ctx.set_materialize_grads(False): backward receives None, not zeros, for an unused
  output; ctx._materialize_non_diff_grads = False does it for non-differentiable
  outputs only, whose materialized gradient otherwise has the output's dtype (an int
  output gets int zeros);
- Tensor.numpy() inside forward (grad mode is off there) works on an input that
  requires grad, as under no_grad, and numpy(force=True) always does;
- mark_non_differentiable with a non-tensor, a Function with no forward or backward,
  calling forward directly.
"""
import warnings

import torch


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


x = torch.tensor([1., 2.], requires_grad=True)


def returning(backward_result, n_inputs=1):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            return args[0] * 2

        @staticmethod
        def backward(ctx, g):
            return backward_result(g)
    return F


show_err("g, None, None", lambda: returning(lambda g: (g * 2, None, None)).apply(x).sum().backward())
print("x.grad:", x.grad.tolist())
show_err("g, g", lambda: returning(lambda g: (g, g)).apply(x).sum().backward())
show_err("g for two inputs", lambda: returning(lambda g: g).apply(x, x).sum().backward())
show_err("g, g for (x, 3.0)", lambda: returning(lambda g: (g, g)).apply(x, 3.0).sum().backward())
show_err("'s'", lambda: returning(lambda g: "s").apply(x).sum().backward())
show_err("3", lambda: returning(lambda g: 3).apply(x).sum().backward())
show_err("[g]", lambda: returning(lambda g: [g]).apply(x).sum().backward())
show_err("('s', None)", lambda: returning(lambda g: ("s", None)).apply(x).sum().backward())
x.grad = None
show_err("None", lambda: returning(lambda g: None).apply(x).sum().backward())
show_err("g as float64", lambda: returning(lambda g: g.double()).apply(x).sum().backward())
print("x.grad:", x.grad.tolist(), x.grad.dtype)


class TwoOutputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, materialize):
        ctx.set_materialize_grads(materialize)
        return t * 2, t * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("  backward got", g1, g2)
        return (g1 if g2 is None else g1 + g2), None


a, b = TwoOutputs.apply(x, True)
a.sum().backward()
a, b = TwoOutputs.apply(x, False)
a.sum().backward()


class NonDifferentiable(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, materialize_non_diff):
        if not materialize_non_diff:
            ctx._materialize_non_diff_grads = False
        index = torch.tensor([1, 0])
        ctx.mark_non_differentiable(index)
        return t * 2, index, t.detach() * 0

    @staticmethod
    def backward(ctx, g, g_index, g_other):
        print("  backward got", g, g_index, g_other)
        return g, None


y, index, other = NonDifferentiable.apply(x, True)
print("requires grad:", y.requires_grad, index.requires_grad, other.requires_grad)
y.sum().backward()
y, index, other = NonDifferentiable.apply(x, False)
y.sum().backward()


class Numpy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        print("  forward: grad mode", torch.is_grad_enabled(), "| t requires grad", t.requires_grad)
        return torch.from_numpy(t.numpy() * 2)

    @staticmethod
    def backward(ctx, g):
        return g * 2


out = Numpy.apply(x)
print("numpy in forward:", out.tolist(), out.grad_fn.name())
show_err("x.numpy()", lambda: x.numpy())
with torch.no_grad():
    show_err("x.numpy() under no_grad", lambda: print(" ", x.numpy().tolist()))
show_err("x.numpy(force=True)", lambda: print(" ", x.numpy(force=True).tolist()))


class MarksNumber(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.mark_non_differentiable(5)
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g


class NoForward(torch.autograd.Function):
    pass


class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2


show_err("mark_non_differentiable(5)", lambda: MarksNumber.apply(x))
with torch.no_grad():
    show_err("mark_non_differentiable(5) under no_grad", lambda: MarksNumber.apply(x))
show_err("no forward", lambda: NoForward.apply(x))
show_err("no backward", lambda: NoBackward.apply(x).sum().backward())
print("forward called directly:", NoBackward.forward(None, x).grad_fn.name())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    show_err("NoBackward()", lambda: NoBackward())
    show_err("NoBackward()(x)", lambda: NoBackward()(x))
    show_err("Function()(x)", lambda: torch.autograd.Function()(x))
for w in caught:
    print("warned:", w.category.__name__, w.message)
