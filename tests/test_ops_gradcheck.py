"""Every op in API.md, checked two ways.

1. ``minigrad.autograd.gradcheck`` on float64 inputs: the analytical Jacobian the
   engine computes agrees with central finite differences. This needs no PyTorch.
2. With torch installed, the same lambda runs through both frameworks on the same
   float64 data (tinygrad's ``helper_test_op`` idea): forward values and the gradient
   of a fixed random weighting of the outputs must agree.

Each case is ``Case(id, fn, make)``: ``fn(T, *tensors)`` is written once against the
framework module ``T`` (``minigrad`` or ``torch``), ``make(rng)`` returns the numpy
inputs. Inputs are chosen away from the points where an op is not differentiable
(``abs``/``relu`` at 0, ``clamp`` at its bounds, ties in ``max``), because there a
finite difference measures a one-sided slope the analytical gradient need not match.
"""
import functools

import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.autograd.gradcheck import GradcheckError


# --- input makers -----------------------------------------------------------------------------

def rand(*shapes, low=-2.0, high=2.0):
    """Uniform values in [low, high) for each shape."""
    return lambda rng: [rng.uniform(low, high, size=s) for s in shapes]


def nonzero(*shapes, low=0.3, high=2.0):
    """Values with |x| in [low, high) and a random sign: away from 0 (abs, relu, division)."""
    return lambda rng: [rng.uniform(low, high, size=s) * rng.choice([-1.0, 1.0], size=s)
                        for s in shapes]


def positive(*shapes, low=0.5, high=2.0):
    """Strictly positive values (log, sqrt, the base of a power)."""
    return rand(*shapes, low=low, high=high)


def distinct(*shapes):
    """A random permutation of well-separated values: no ties for max/min/maximum,
    also across several inputs (they share one pool)."""
    def make(rng):
        total = sum(int(np.prod(s)) for s in shapes)
        pool = rng.permutation(np.linspace(-2.0, 2.0, total))
        out, start = [], 0
        for s in shapes:
            n = int(np.prod(s))
            out.append(pool[start:start + n].reshape(s))
            start += n
        return out
    return make


def away_from(points, *shapes, margin=0.1):
    """Uniform values nudged at least ``margin`` away from every point (clamp bounds)."""
    def make(rng):
        arrays = rand(*shapes)(rng)
        for a in arrays:
            for p in points:
                close = np.abs(a - p) < margin
                a[close] = p + 2 * margin
        return arrays
    return make


# Constant (non-differentiable) operands built the same way in both frameworks.
MASK_34 = np.array([[True, False, True, False],
                    [False, False, True, True],
                    [True, True, False, False]])
IDX_REPEAT = np.array([0, 2, 0, 1, 2, 2])


def const(T, array):
    return T.tensor(array)


# --- custom Functions, built once per framework -------------------------------------------------

@functools.lru_cache(maxsize=None)
def custom_functions(T):
    class Cube(T.autograd.Function):
        """y = x**3, saving the input: dy/dx = 3 x**2."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    class MulAdd(T.autograd.Function):
        """Two inputs, two outputs: (x*y, x+y), saving both inputs."""

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            x, y = ctx.saved_tensors
            return g_prod * y + g_sum, g_prod * x + g_sum

    class ExpSaveOutput(T.autograd.Function):
        """y = exp(x), saving the output."""

        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class WrongCube(T.autograd.Function):
        """A deliberately wrong backward (2x instead of 3x**2): gradcheck must fail."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    class ScaledTanh(T.autograd.Function):
        """The setup_context style: forward(x, scale) without ctx; setup_context saves
        the output and keeps the non-tensor scale on ctx."""

        @staticmethod
        def forward(x, scale):
            return x.tanh() * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.scale = inputs[1]
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            t = out / ctx.scale
            return g * ctx.scale * (1 - t * t), None

    return {"Cube": Cube, "MulAdd": MulAdd, "ExpSaveOutput": ExpSaveOutput,
            "WrongCube": WrongCube, "ScaledTanh": ScaledTanh}


def fn_custom(name):
    return lambda T, *xs: custom_functions(T)[name].apply(*xs)


# --- the table ------------------------------------------------------------------------------------

class Case:
    def __init__(self, id, fn, make, torch_fn=None):
        self.id, self.fn, self.make = id, fn, make
        self.torch_fn = torch_fn or fn          # when torch spells it differently

    def __repr__(self):
        return self.id


def _inplace_add(T, a, b):
    c = a * 2                                   # a non-leaf: in-place is allowed
    c.add_(b)
    return c.exp()


def _inplace_mul(T, a, b):
    c = a.tanh()                                # tanh saves its output; mul_ comes after
    d = c.clone()
    d.mul_(b)
    return d * a


def _inplace_chain(T, a):
    c = a + 1
    c.mul_(a)                                   # mul_ saves the pre-write value of c
    c.add_(3)
    return c


REDUCTIONS = []
for name in ("sum", "mean"):
    REDUCTIONS += [
        Case(f"{name}-full", lambda T, a, n=name: getattr(a, n)(), rand((3, 4))),
        Case(f"{name}-dim0", lambda T, a, n=name: getattr(a, n)(0), rand((3, 4))),
        Case(f"{name}-dim-1-keepdim", lambda T, a, n=name: getattr(a, n)(-1, keepdim=True),
             rand((2, 3, 4))),
        Case(f"{name}-dims(0,2)", lambda T, a, n=name: getattr(a, n)((0, 2)), rand((2, 3, 4))),
        Case(f"{name}-dims(0,2)-keepdim", lambda T, a, n=name: getattr(a, n)((0, 2), keepdim=True),
             rand((2, 3, 4))),
        Case(f"{name}-dims(1,-1)", lambda T, a, n=name: getattr(a, n)(dim=(1, -1)), rand((2, 3, 4))),
        Case(f"{name}-function", lambda T, a, n=name: getattr(T, n)(a, 1), rand((3, 4))),
    ]
REDUCTIONS += [
    Case("topk-last-dim", lambda T, a: a.topk(2).values, distinct((3, 4))),
    Case("topk-dim0-smallest", lambda T, a: T.topk(a, 2, dim=0, largest=False)[0], distinct((3, 4))),
]
for name in ("max", "min"):
    # PyTorch's max/min take one int dim (a tuple raises TypeError; see the test below).
    REDUCTIONS += [
        Case(f"{name}-full", lambda T, a, n=name: getattr(a, n)(), distinct((3, 4))),
        Case(f"{name}-dim1", lambda T, a, n=name: getattr(a, n)(1).values, distinct((3, 4))),
        Case(f"{name}-dim0-keepdim", lambda T, a, n=name: getattr(a, n)(0, keepdim=True).values,
             distinct((3, 4))),
        Case(f"{name}-dim-1-3d", lambda T, a, n=name: getattr(a, n)(dim=-1)[0], distinct((2, 3, 4))),
        Case(f"{name}-function", lambda T, a, n=name: getattr(T, n)(a), distinct((2, 3))),
    ]

REDUCTIONS += [
    Case("norm-full", lambda T, a: a.norm(), rand((3, 4))),
    Case("norm-dim1", lambda T, a: a.norm(2, dim=1), rand((3, 4))),
    Case("norm-dim-1-keepdim", lambda T, a: a.norm(dim=-1, keepdim=True), rand((2, 3, 4))),
    Case("norm-dims(0,2)", lambda T, a: a.norm(dim=(0, 2)), rand((2, 3, 4))),
]

BINARY = {
    "add": (lambda T, a, b: a + b, rand),
    "sub": (lambda T, a, b: a - b, rand),
    "mul": (lambda T, a, b: a * b, rand),
    "div": (lambda T, a, b: a / b, nonzero),
    "pow": (lambda T, a, b: a ** b, positive),
    "maximum": (lambda T, a, b: T.maximum(a, b), distinct),
    "add-method-alpha": (lambda T, a, b: a.add(b, alpha=2), rand),
    "sub-method-alpha": (lambda T, a, b: a.sub(b, alpha=3), rand),
    "mul-method": (lambda T, a, b: a.mul(b), rand),
    "div-method": (lambda T, a, b: a.div(b), nonzero),
    "pow-function": (lambda T, a, b: T.pow(a, b), positive),
}
BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((2, 3, 4), (3, 1)),
                    ((), (2, 3))]
BROADCASTING = [Case(f"{name}-{list(sa)}-{list(sb)}", fn, make(sa, sb))
                for name, (fn, make) in BINARY.items() for sa, sb in BROADCAST_SHAPES]
BROADCASTING += [
    Case("where-[3,1]-[1,4]", lambda T, a, b: T.where(const(T, MASK_34), a, b), rand((3, 1), (1, 4))),
    Case("where-[4]-[2,3,4]", lambda T, a, b: T.where(const(T, MASK_34[0]), a, b), rand((4,), (2, 3, 4))),
    Case("matmul-batch-broadcast", lambda T, a, b: a @ b, rand((2, 1, 3, 4), (3, 4, 2))),
]

SCALARS = [
    Case("add-scalar", lambda T, a: a + 2.5, rand((3,))),
    Case("radd-scalar", lambda T, a: 2.5 + a, rand((3,))),
    Case("rsub-scalar", lambda T, a: 2.5 - a, rand((3,))),
    Case("rmul-scalar", lambda T, a: 3 * a, rand((3,))),
    Case("rdiv-scalar", lambda T, a: 2.0 / a, nonzero((3,))),
    Case("div-scalar", lambda T, a: a / 4, rand((3,))),
    Case("pow-int", lambda T, a: a ** 3, rand((3, 2))),
    Case("pow-float", lambda T, a: a ** 1.5, positive((3, 2))),
    Case("pow-negative", lambda T, a: a ** -2, nonzero((3, 2))),
    Case("pow-method", lambda T, a: a.pow(2), rand((3,))),
    Case("rpow", lambda T, a: 2 ** a, rand((3,))),
    Case("neg", lambda T, a: -a, rand((2, 3))),
    Case("neg-method", lambda T, a: a.neg(), rand((2, 3))),
]

UNARY = [
    Case("exp", lambda T, a: a.exp(), rand((2, 3))),
    Case("exp-function", lambda T, a: T.exp(a), rand((2, 3))),
    Case("log", lambda T, a: a.log(), positive((2, 3))),
    # away from the halves, where rounding jumps and a finite difference is not 0
    Case("round", lambda T, a: a.round(), away_from((-1.5, -0.5, 0.5, 1.5), (2, 3))),
    Case("round-function", lambda T, a: T.round(a), away_from((-1.5, -0.5, 0.5, 1.5), (2, 3))),
    Case("log-function", lambda T, a: T.log(a), positive((2, 3))),
    Case("tanh", lambda T, a: a.tanh(), rand((2, 3))),
    Case("sigmoid", lambda T, a: a.sigmoid(), rand((2, 3))),
    Case("sigmoid-function", lambda T, a: T.sigmoid(a), rand((2, 3))),
    Case("relu", lambda T, a: a.relu(), nonzero((2, 3))),
    Case("relu-function", lambda T, a: T.relu(a), nonzero((2, 3))),
    Case("abs", lambda T, a: a.abs(), nonzero((2, 3))),
    Case("sqrt", lambda T, a: a.sqrt(), positive((2, 3))),
    Case("sin", lambda T, a: a.sin(), rand((2, 3))),
    Case("cos", lambda T, a: a.cos(), rand((2, 3))),
    Case("clamp-both", lambda T, a: a.clamp(-0.5, 0.7), away_from((-0.5, 0.7), (3, 4))),
    Case("clamp-min", lambda T, a: a.clamp(min=0.2), away_from((0.2,), (3, 4))),
    Case("clamp-max", lambda T, a: T.clamp(a, max=-0.3), away_from((-0.3,), (3, 4))),
    Case("softmax-dim1", lambda T, a: a.softmax(1), rand((3, 4))),
    Case("softmax-dim0-function", lambda T, a: T.softmax(a, dim=0), rand((3, 4))),
    Case("softmax-3d-last", lambda T, a: a.softmax(-1), rand((2, 2, 3))),
    Case("log_softmax-dim1", lambda T, a: a.log_softmax(1), rand((3, 4))),
    Case("log_softmax-dim0-function", lambda T, a: T.log_softmax(a, dim=0), rand((3, 4))),
    Case("masked_fill", lambda T, a: a.masked_fill(const(T, MASK_34), 0.5), rand((3, 4))),
    Case("masked_fill-broadcast-mask", lambda T, a: a.masked_fill(const(T, MASK_34[1]), -1.0),
         rand((2, 3, 4))),
    Case("where", lambda T, a, b: T.where(const(T, MASK_34), a, b), rand((3, 4), (3, 4))),
    Case("where-scalar-other", lambda T, a: T.where(const(T, MASK_34), a, 0.0), rand((3, 4)),
         torch_fn=lambda T, a: T.where(const(T, MASK_34), a, 0.0)),
    Case("clone", lambda T, a: a.clone(), rand((2, 3))),
]

SHAPE = [
    Case("reshape", lambda T, a: a.reshape(4, 3), rand((3, 4))),
    Case("reshape-tuple-infer", lambda T, a: a.reshape((2, -1)), rand((2, 3, 2))),
    Case("reshape-non-contiguous", lambda T, a: a.transpose(0, 1).reshape(-1), rand((3, 4))),
    Case("view", lambda T, a: a.view(2, 6), rand((3, 4))),
    Case("view-infer", lambda T, a: a.view(-1, 2), rand((2, 3, 2))),
    Case("flatten", lambda T, a: a.flatten(), rand((2, 3, 2))),
    Case("flatten-start1", lambda T, a: a.flatten(1), rand((2, 3, 2))),
    Case("flatten-function", lambda T, a: T.flatten(a, 0, 1), rand((2, 3, 2))),
    Case("transpose-2d", lambda T, a: a.transpose(0, 1), rand((3, 4))),
    Case("transpose-3d", lambda T, a: a.transpose(0, 2), rand((2, 3, 4))),
    Case("T", lambda T, a: a.T, rand((3, 4))),
    Case("triu", lambda T, a: a.triu(), rand((3, 4))),
    Case("triu-diagonal1-function", lambda T, a: T.triu(a, 1), rand((4, 3))),
    Case("tril-diagonal-1", lambda T, a: a.tril(-1), rand((3, 4))),
    Case("trace", lambda T, a: a.trace(), rand((3, 4))),
    # a 3-D permute, because a 2-D transpose is its own inverse: a backward that
    # applied the permutation instead of its inverse would still pass in 2-D.
    Case("permute-3d", lambda T, a: a.permute(2, 0, 1), rand((2, 3, 4))),
    Case("permute-3d-tuple", lambda T, a: a.permute((1, 2, 0)), rand((2, 3, 4))),
    Case("permute-function", lambda T, a: T.permute(a, (2, 0, 1)), rand((2, 3, 4))),
    Case("unsqueeze0", lambda T, a: a.unsqueeze(0), rand((3, 4))),
    Case("unsqueeze-1", lambda T, a: a.unsqueeze(-1), rand((3, 4))),
    Case("squeeze-all", lambda T, a: a.squeeze(), rand((3, 1, 4, 1))),
    Case("squeeze-dim", lambda T, a: a.squeeze(1), rand((3, 1, 4, 1))),
    Case("squeeze-tuple", lambda T, a: a.squeeze((1, 3)), rand((3, 1, 4, 1))),
    Case("expand", lambda T, a: a.expand(3, 4), rand((3, 1))),
    Case("expand-new-dims", lambda T, a: a.expand(2, 3, 4), rand((3, 1))),
    Case("expand-minus-one", lambda T, a: a.expand(2, -1, 5), rand((3, 1))),
]

INDEXING = [
    Case("int", lambda T, a: a[1], rand((3, 4))),
    Case("negative-int", lambda T, a: a[-1], rand((3, 4))),
    Case("int-int", lambda T, a: a[1, 2], rand((3, 4))),
    Case("slice", lambda T, a: a[1:], rand((3, 4))),
    Case("slice-step", lambda T, a: a[::2, 1:3], rand((3, 4))),
    Case("slice-int", lambda T, a: a[:, -1], rand((3, 4))),
    Case("ellipsis-none", lambda T, a: a[..., None, 0], rand((2, 3, 4))),
    Case("index-list-repeated", lambda T, a: a[[0, 2, 0, 0]], rand((3, 4))),
    Case("index-tensor-repeated", lambda T, a: a[const(T, IDX_REPEAT)], rand((3, 4))),
    Case("index-tensor-dim1", lambda T, a: a[:, const(T, IDX_REPEAT)], rand((3, 4))),
    Case("index-two-arrays", lambda T, a: a[const(T, IDX_REPEAT), const(T, IDX_REPEAT[::-1].copy())],
         rand((3, 4))),
    Case("bool-mask-2d", lambda T, a: a[const(T, MASK_34)], rand((3, 4))),
    Case("bool-mask-rows", lambda T, a: a[const(T, np.array([True, False, True]))], rand((3, 4))),
]

COMBINE = [
    Case("stack-dim0", lambda T, a, b: T.stack([a, b]), rand((3, 4), (3, 4))),
    Case("stack-dim1", lambda T, a, b, c: T.stack([a, b, c], dim=1), rand((3, 4), (3, 4), (3, 4))),
    Case("stack-dim-1", lambda T, a, b: T.stack((a, b), -1), rand((2, 3), (2, 3))),
    Case("cat-dim0", lambda T, a, b: T.cat([a, b]), rand((2, 4), (3, 4))),
    Case("cat-dim1", lambda T, a, b, c: T.cat([a, b, c], dim=1), rand((3, 1), (3, 2), (3, 4))),
    Case("cat-same-twice", lambda T, a: T.cat([a, a * 2, a], 0), rand((2, 3))),
    Case("unbind", lambda T, a: a.unbind(), rand((3, 4))),
    Case("unbind-dim1", lambda T, a: T.unbind(a, 1), rand((3, 4))),
    Case("unbind-then-use-one", lambda T, a: a.unbind(0)[1] * 2, rand((3, 4))),
]

MATMUL = [
    Case("matmul-2d@2d", lambda T, a, b: a @ b, rand((3, 4), (4, 2))),
    Case("matmul-1d@1d", lambda T, a, b: a @ b, rand((4,), (4,))),
    Case("matmul-2d@1d", lambda T, a, b: a @ b, rand((3, 4), (4,))),
    Case("matmul-1d@2d", lambda T, a, b: a @ b, rand((4,), (4, 2))),
    Case("matmul-3d@2d", lambda T, a, b: a @ b, rand((2, 3, 4), (4, 2))),
    Case("matmul-2d@3d", lambda T, a, b: a @ b, rand((3, 4), (2, 4, 2))),
    Case("matmul-batched", lambda T, a, b: a.matmul(b), rand((2, 3, 4), (2, 4, 2))),
    Case("matmul-3d@1d", lambda T, a, b: T.matmul(a, b), rand((2, 3, 4), (4,))),
    Case("matmul-1d@3d", lambda T, a, b: T.matmul(a, b), rand((4,), (2, 4, 3))),
]

INPLACE = [
    Case("add_-nonleaf", _inplace_add, rand((3, 4), (3, 4))),
    Case("add_-nonleaf-broadcast", _inplace_add, rand((3, 4), (4,))),
    Case("mul_-nonleaf", _inplace_mul, rand((3, 4), (3, 4))),
    Case("mul_-nonleaf-broadcast", _inplace_mul, rand((3, 4), (3, 1))),
    Case("mul_-then-add_", _inplace_chain, rand((2, 3))),
]

CUSTOM = [
    Case("custom-cube", fn_custom("Cube"), rand((3, 2))),
    Case("custom-two-in-two-out", fn_custom("MulAdd"), rand((3,), (3,))),
    Case("custom-saves-output", fn_custom("ExpSaveOutput"), rand((2, 2))),
    Case("custom-setup-context", lambda T, a: custom_functions(T)["ScaledTanh"].apply(a, 2.5),
         rand((2, 3))),
    Case("custom-in-a-graph", lambda T, a: fn_custom("Cube")(T, a.tanh()).sum(0) * a[0],
         rand((3, 2))),
]

COMPOSITE = [
    Case("mse-like", lambda T, a, b: ((a - b) ** 2).mean(), rand((4, 3), (4, 3))),
    Case("linear-tanh", lambda T, x, w, b: (x @ w.T + b).tanh().sum(1),
         rand((5, 3), (2, 3), (2,))),
    Case("softmax-cross-entropy-like",
         lambda T, z: -(z.log_softmax(1)[[0, 1, 2], [1, 0, 3]]).mean(), rand((3, 4))),
    Case("tensor-used-three-times", lambda T, a: a * a.exp() + a.sigmoid(), rand((3,))),
    Case("embedding", lambda T, w: T.nn.functional.embedding(const(T, [[0, 2, 2], [3, 0, 1]]), w),
         rand((4, 3))),
    Case("gelu", lambda T, x: T.nn.functional.gelu(x), rand((2, 5), low=-3.0, high=3.0)),
    Case("adaptive-avg-pool2d-1", lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 1),
         rand((2, 3, 4, 5))),
]

def with_zeros(positions, *shapes):
    """Uniform values with exact zeros at ``positions`` (index tuples) of the first input:
    prod's gradient is the product of the *other* elements, not ``result / x``."""
    def make(rng):
        arrays = rand(*shapes)(rng)
        for pos in positions:
            arrays[0][pos] = 0.0
        return arrays
    return make


GATHER_IDX = np.array([[0, 0, 3], [1, 3, 3], [2, 2, 0]])

SURFACE = [
    Case("prod-full", lambda T, a: a.prod(), rand((2, 3))),
    Case("prod-dim1", lambda T, a: a.prod(1), rand((3, 4))),
    Case("prod-dim0-keepdim", lambda T, a: a.prod(0, keepdim=True), rand((3, 4))),
    Case("prod-dim-1-3d", lambda T, a: T.prod(a, -1), rand((2, 3, 4))),
    Case("prod-full-one-zero", lambda T, a: a.prod(), with_zeros([(1, 2)], (2, 3))),
    Case("prod-full-two-zeros", lambda T, a: a.prod(), with_zeros([(0, 0), (1, 2)], (2, 3))),
    Case("prod-dim-zeros", lambda T, a: a.prod(1), with_zeros([(0, 1), (2, 0), (2, 3)], (3, 4))),
    Case("var-full", lambda T, a: a.var(), rand((3, 4))),
    Case("var-dim1", lambda T, a: a.var(1), rand((3, 4))),
    Case("var-biased-keepdim", lambda T, a: a.var(0, unbiased=False, keepdim=True), rand((3, 4))),
    Case("var-correction-dims", lambda T, a: T.var(a, dim=(0, 2), correction=2), rand((2, 3, 4))),
    Case("var-positional", lambda T, a: a.var(1, False, True), rand((3, 4))),
    Case("std-full", lambda T, a: a.std(), rand((3, 4))),
    Case("std-dim0-correction0", lambda T, a: a.std(0, correction=0), rand((3, 4))),
    Case("std-function", lambda T, a: T.std(a, -1, keepdim=True), rand((2, 3, 4))),
    Case("var_mean-full", lambda T, a: T.var_mean(a), rand((3, 4))),
    Case("var_mean-dim1", lambda T, a: T.var_mean(a, 1), rand((3, 4))),
    Case("var_mean-keepdim-biased", lambda T, a: T.var_mean(a, (0, 1), keepdim=True, correction=0),
         rand((2, 3, 4))),
    Case("var_mean-only-mean-used", lambda T, a: T.var_mean(a, 0)[1] * 2, rand((3, 4))),
    Case("std_mean-full", lambda T, a: T.std_mean(a), rand((3, 4))),
    Case("std_mean-dim1-keepdim", lambda T, a: T.std_mean(a, 1, keepdim=True), rand((3, 4))),
    Case("std_mean-only-std-used", lambda T, a: T.std_mean(a, 0, correction=0)[0] * 2, rand((3, 4))),
    Case("gather-dim1-repeated", lambda T, a: a.gather(1, const(T, GATHER_IDX)), rand((3, 4))),
    Case("gather-dim0-smaller-index", lambda T, a: T.gather(a, 0, const(T, GATHER_IDX[:2, :2])),
         rand((4, 3))),
    Case("ravel-non-contiguous", lambda T, a: a.t().ravel() * 2, rand((3, 4))),
]

CASES = (REDUCTIONS + BROADCASTING + SCALARS + UNARY + SHAPE + INDEXING + COMBINE + MATMUL
         + INPLACE + CUSTOM + COMPOSITE + SURFACE)


def _inputs(case, framework, seed=0):
    rng = np.random.default_rng(seed)
    return [framework.tensor(x, dtype=framework.float64, requires_grad=True)
            for x in case.make(rng)]


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


# --- 1. gradcheck ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradcheck(case):
    inputs = _inputs(case, minigrad)
    assert all(x.dtype == minigrad.float64 for x in inputs)
    assert gradcheck(lambda *xs: case.fn(minigrad, *xs), inputs)


SECOND_ORDER = [
    Case("mul", lambda T, a, b: a * b, rand((2, 3), (2, 3))),
    Case("mul-broadcast", lambda T, a, b: a * b, rand((2, 1), (3,))),
    Case("exp", lambda T, a: a.exp(), rand((2, 3))),
    Case("tanh", lambda T, a: a.tanh(), rand((2, 3))),
    Case("matmul", lambda T, a, b: a @ b, rand((2, 3), (3, 2))),
    Case("softmax", lambda T, a: a.softmax(1), rand((2, 3))),
    Case("log_softmax", lambda T, a: a.log_softmax(-1), rand((2, 3))),
    Case("sigmoid-div", lambda T, a, b: a.sigmoid() / b, rand((3,), (3,), low=0.5)),
    Case("gelu", lambda T, a: T.nn.functional.gelu(a), rand((2, 3), low=-3.0, high=3.0)),
    Case("custom-cube", fn_custom("Cube"), rand((3,))),
    Case("prod-dim", lambda T, a: a.prod(1), rand((2, 3))),
    Case("prod-zeros", lambda T, a: a.prod(1), with_zeros([(0, 1), (1, 0), (1, 2)], (2, 3))),
    Case("var-dim", lambda T, a: a.var(1), rand((2, 3))),
    Case("std", lambda T, a: a.std(0), rand((3, 2))),
    Case("var_mean", lambda T, a: T.var_mean(a, 1), rand((2, 3))),
    Case("std_mean", lambda T, a: T.std_mean(a, 1), rand((2, 3))),
    Case("gather", lambda T, a: a.gather(1, const(T, GATHER_IDX)), rand((3, 4))),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=repr)
def test_gradgradcheck(case):
    inputs = _inputs(case, minigrad)
    assert gradgradcheck(lambda *xs: case.fn(minigrad, *xs), inputs)


def test_gradcheck_can_fail():
    """The tool is only worth something if it can say no: a custom Function with a
    wrong backward (2x instead of 3x**2) must be caught."""
    wrong = custom_functions(minigrad)["WrongCube"]
    x = minigrad.tensor(np.array([0.5, 1.5, -2.0]), dtype=minigrad.float64, requires_grad=True)
    assert gradcheck(wrong.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(wrong.apply, (x,))
    assert isinstance(GradcheckError("x"), RuntimeError)     # as torch's GradcheckError
    # ... and the correct one passes on the same input.
    assert gradcheck(custom_functions(minigrad)["Cube"].apply, (x,))


def test_gradgradcheck_can_fail():
    """Right first derivative, wrong second: only gradgradcheck notices."""
    class FirstOrderOnly(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2         # detached: no second derivative

    x = minigrad.tensor(np.array([0.5, 1.5]), dtype=minigrad.float64, requires_grad=True)
    assert gradcheck(FirstOrderOnly.apply, (x,))
    assert gradgradcheck(FirstOrderOnly.apply, (x,), raise_exception=False) is False


def test_max_over_a_tuple_of_dims_is_a_type_error_as_in_torch():
    """torch.max/min take a single int dim (torch.amax takes tuples); minigrad refuses too."""
    a = minigrad.tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(TypeError):
        a.max(dim=(0, 1))


# --- 2. the same lambda through minigrad and torch ----------------------------------------------------

def _run(framework, case, fn):
    inputs = _inputs(case, framework)
    outs = _as_tuple(fn(framework, *inputs))
    # A fixed random weighting of every output element, so that no gradient is
    # trivially zero (the gradient of softmax(x).sum() is 0 everywhere).
    rng = np.random.default_rng(1)
    loss = None
    for o in outs:
        w = framework.tensor(rng.uniform(0.5, 1.5, size=tuple(o.shape)), dtype=framework.float64)
        term = (o * w).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return ([o.detach().numpy() for o in outs],
            [None if x.grad is None else x.grad.numpy() for x in inputs])


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_same_as_torch(case):
    torch = pytest.importorskip("torch")
    m_outs, m_grads = _run(minigrad, case, case.fn)
    t_outs, t_grads = _run(torch, case, case.torch_fn)
    assert len(m_outs) == len(t_outs)
    for m, t in zip(m_outs, t_outs):
        assert m.shape == t.shape
        np.testing.assert_allclose(m, t, rtol=1e-10, atol=1e-12)
    for i, (m, t) in enumerate(zip(m_grads, t_grads)):
        assert (m is None) == (t is None), f"input {i}: grad None in only one framework"
        if m is not None:
            assert m.shape == t.shape
            np.testing.assert_allclose(m, t, rtol=1e-10, atol=1e-12, err_msg=f"grad of input {i}")


# Node-name differences written down by the engine (docs/differences.md, _indexing.py):
# values and gradients still agree (test_same_as_torch).
KNOWN_NAME_DIFFERENCES = {
    "matmul-batched": "a batched product is one BmmBackward0 (torch: expand/bmm/view chain)",
    "matmul-batch-broadcast": "a batched product is one BmmBackward0 (torch: expand/bmm/view chain)",
    "matmul-2d@3d": "a batched product is one BmmBackward0 (torch: expand/clone/bmm/view chain)",
    "matmul-1d@3d": "a batched product is one BmmBackward0 (torch: expand/clone/bmm/view chain)",
    "ellipsis-none": "a key with None or ... is one IndexBackward0 (torch: Unsqueeze + Select)",
}


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_same_grad_fn_names_as_torch(case):
    """The node names a learner sees (``grad_fn.name()``) along the whole graph."""
    torch = pytest.importorskip("torch")
    if case.id in KNOWN_NAME_DIFFERENCES:
        pytest.skip("known difference: " + KNOWN_NAME_DIFFERENCES[case.id])

    def names(framework, fn):
        return names_of_graph(_as_tuple(fn(framework, *_inputs(case, framework))))

    assert names(minigrad, case.fn) == names(torch, case.torch_fn)


def names_of_graph(outs):
    """The sorted node names of the graph behind ``outs`` (each node once)."""
    seen, names, stack = set(), [], [o.grad_fn for o in outs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return sorted(names)
