"""minigrad prints what PyTorch prints.

Every case is one Python expression, evaluated once with ``torch`` bound to real
PyTorch and once bound to minigrad; the two texts (or the two errors) must be equal
once PyTorch's module name ``torch.`` is read as ``minigrad.``, the one printed
difference the project allows. ``a`` in an expression is a numpy array made for the
case; ``opts`` are passed to ``set_printoptions`` first.
"""
import math
import re

import numpy as np
import pytest

import minigrad

real_torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

NAN, INF = math.nan, math.inf


def _rng(seed):
    return np.random.default_rng(seed)


def _floats(seed, shape, scale=1.0):
    return (_rng(seed).standard_normal(shape) * scale).astype(np.float64)


def _cases():
    """(id, expression, array, print options)."""
    cases = []

    def add(name, expr, a=None, **opts):
        cases.append(pytest.param(expr, a, opts, id=name))

    f32 = "torch.tensor(a)"
    values = {
        "int_mode": [1., 2., 3.], "int_mode_neg": [-1., 20., 300.], "zero": [0.], "neg_zero": [-0.],
        "zeros_signed": [0., -0.], "neg_zero_and_one": [1., -0.], "neg_zero_fixed": [-0., 0.5],
        "nan": [NAN], "infs": [INF, -INF], "int_nan_inf": [1., NAN, INF], "frac_nan_inf": [0.5, NAN, -INF],
        "zero_nan": [0., NAN, -INF], "fixed": [0.1234567, 2.5, -3.25], "round_up": [0.99999, 1.5],
        "ratio_999": [1.5, 999.5], "ratio_1001": [1.5, 1502.], "int_ratio_1001": [1., 1001.],
        "big": [1e8, 1.], "bigger": [1.5e8, 2.], "int_big": [1e10, 3.], "huge": [3e38, -1e30],
        "small": [1e-4, 0.5], "smaller": [9e-5, 0.5], "tiny": [1e-30, 1e-32], "tiny_with_zero": [0., 1e-5],
        "sci_nan": [1e-8, NAN, INF, 0.], "mixed_sign": [-1234.5, 0.001], "one_sci": [12345678.9],
        "rounding_width": [9.99995, 0.5], "negative_fixed": [-0.5, -0.25],
    }
    for name, v in values.items():
        a = np.array(v)
        add(f"float_{name}", f32, a)
        add(f"float64_{name}", "torch.tensor(a, dtype=torch.float64)", a)
    for name, v in [("nan", NAN), ("neg_zero", -0.), ("int", 3.), ("frac", 0.1), ("tiny", 1e-8), ("big", 1e9),
                    ("inf", -INF)]:
        add(f"scalar_{name}", "torch.tensor(a)", np.array(v))
    add("scalar_int", "torch.tensor(a)", np.array(-7))
    add("scalar_bool", "torch.tensor(a)", np.array(True))
    add("scalar_float64", "torch.tensor(a, dtype=torch.float64)", np.array(2.5))

    # every rank, a few magnitudes
    for rank, shape in enumerate([(), (5,), (3, 4), (2, 3, 4), (2, 2, 3, 2)]):
        for scale in (1.0, 1e-3, 1e5):
            add(f"normal_{rank}d_x{scale:g}", f32, _floats(rank, shape, scale))
        add(f"int_{rank}d", "torch.tensor(a)", _rng(rank).integers(-50, 500, shape))
        add(f"bool_{rank}d", "torch.tensor(a)", _rng(rank).random(shape) > 0.5)
    add("int_extremes", "torch.tensor(a)", np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0]))

    # empty tensors
    for shape in [(0,), (0, 3), (2, 0, 3), (3, 0)]:
        for dtype in ("float32", "float64", "int64", "bool"):
            add(f"empty_{shape}_{dtype}", f"torch.zeros({shape}, dtype=torch.{dtype})")
    add("empty_requires_grad", "torch.zeros(0, 2, requires_grad=True)")

    # wrapping at linewidth, 1-D and nested
    for n in (10, 25, 26, 27, 40, 100):
        add(f"arange_{n}", f"torch.arange({n})")
        add(f"arange_float_{n}", f"torch.arange({n}.)")
        add(f"wide_{n}", f32, _floats(n, (n,)))
    add("wrap_2d", f32, _floats(1, (3, 20)))
    add("wrap_3d", f32, _floats(2, (2, 3, 15)))
    add("wrap_4d_int", "torch.tensor(a)", _rng(3).integers(-1000, 1000, (2, 2, 2, 30)))
    add("wrap_sci", f32, _floats(4, (30,), 1e6))

    # summarising around the threshold
    for shape in [(1000,), (1001,), (40, 25), (40, 26), (10, 10, 11), (2, 3, 4, 50), (1, 2000), (2000, 1)]:
        add(f"summarize_{shape}", f32, _floats(5, shape))
        add(f"summarize_int_{shape}", "torch.tensor(a)", _rng(5).integers(0, 10**6, shape))
    add("summarize_hidden_big", f32, np.concatenate([np.ones(500), [1e9], np.ones(600)]))
    add("summarize_bool", "torch.tensor(a)", _rng(6).random(2000) > 0.5)

    # suffixes: dtype, requires_grad, grad_fn, and where they wrap
    add("requires_grad", "torch.tensor(a, requires_grad=True)", np.array([1., 2.]))
    add("requires_grad_0d", "torch.tensor(a, requires_grad=True)", np.array(0.5))
    add("float64_requires_grad", "torch.tensor(a, dtype=torch.float64, requires_grad=True)",
        np.array([1.5, 2.]))
    add("grad_fn_mul", "torch.tensor(a, requires_grad=True) * 2", np.array([1., 2.]))
    add("grad_fn_sum", "(torch.tensor(a, requires_grad=True) * 2).sum()", np.array([1., 2.]))
    add("grad_fn_float64", "torch.tensor(a, dtype=torch.float64, requires_grad=True).exp()",
        np.array([1., 2.]))
    add("grad_fn_2d", "torch.tensor(a, requires_grad=True).relu()", _floats(7, (3, 3)))
    for n in (9, 10, 11, 12, 13):
        add(f"suffix_wrap_{n}", "torch.tensor(a, dtype=torch.float64, requires_grad=True) + 1",
            _floats(8, (n,)))
        add(f"suffix_wrap_int_{n}", "torch.arange(a.size) * 10**8 + 5", np.zeros(n))
    add("suffix_wrap_long_row", "torch.tensor(a, dtype=torch.float64).add(1).requires_grad_()",
        _floats(9, (2, 9)))
    add("grad", "(lambda x: ((x * x).sum().backward(), x.grad)[1])(torch.tensor(a, requires_grad=True))",
        _floats(10, (2, 3)))
    add("data_of_leaf", "torch.tensor(a, requires_grad=True).data", np.array([1., 2.]))
    add("detached", "(torch.tensor(a, requires_grad=True) * 3).detach()", np.array([1., 2.]))

    # every print option
    probe = _floats(11, (4, 300))
    for opts in [dict(precision=0), dict(precision=1), dict(precision=2), dict(precision=8),
                 dict(threshold=5), dict(threshold=0), dict(threshold=2000),
                 dict(edgeitems=0), dict(edgeitems=1), dict(edgeitems=2), dict(edgeitems=5),
                 dict(linewidth=20), dict(linewidth=40), dict(linewidth=120), dict(linewidth=1),
                 dict(profile="short"), dict(profile="full"), dict(profile="default"),
                 dict(sci_mode=True), dict(sci_mode=False), dict(profile="short", precision=6),
                 dict(threshold=10, edgeitems=1, linewidth=30)]:
        tag = "_".join(f"{k}{v}" for k, v in opts.items())
        add(f"opts_{tag}_matrix", f32, probe, **opts)
        add(f"opts_{tag}_vector", f32, _floats(12, (30,), 100.0), **opts)
        add(f"opts_{tag}_ints", "torch.arange(30)", None, **opts)
        add(f"opts_{tag}_sci", f32, np.array([1e-6, 1.0, NAN]), **opts)
        add(f"opts_{tag}_intmode", f32, np.array([1.0, -20.0, INF]), **opts)
        add(f"opts_{tag}_zeros", f32, np.zeros(3), **opts)
        add(f"opts_{tag}_grad_fn", "torch.tensor(a, dtype=torch.float64, requires_grad=True) * 2",
            _floats(13, (12,)), **opts)
        add(f"opts_{tag}_0d", f32, np.array(3.14159265), **opts)

    # format specs and f-strings
    for spec in ("", ".3f", ">12", ".2e", "g"):
        add(f"format_float_{spec}", f"format(torch.tensor(a), {spec!r})", np.array(0.5))
        add(f"format_requires_grad_{spec}", f"format(torch.tensor(a, requires_grad=True) * 2, {spec!r})",
            np.array(0.25))
        add(f"format_1d_{spec}", f"format(torch.tensor(a), {spec!r})", np.array([0.5, 1.]))
        add(f"format_parameter_{spec}", f"format(torch.nn.Parameter(torch.tensor(a)), {spec!r})",
            np.array(0.5))
    add("format_int", "format(torch.tensor(a), 'd')", np.array(3))
    add("format_int_float_spec", "format(torch.tensor(a), '.2f')", np.array(3))
    add("format_bool", "f'{torch.tensor(a)}'", np.array(True))
    add("fstring_loss", "f'loss {torch.tensor(a):.4f} {torch.tensor(a)}'", np.array(0.123456))

    # other objects real code prints
    add("max_dim", "torch.tensor(a).max(1)", _floats(14, (3, 4)))
    add("min_dim_keepdim", "torch.tensor(a).min(0, keepdim=True)", _floats(15, (3, 4)))
    add("max_dim_grad", "torch.tensor(a, requires_grad=True).max(0)", _floats(16, (2, 3)))
    add("max_fields", "(lambda r: (r.values, r.indices, type(r)))(torch.tensor(a).max(0))",
        _floats(17, (2, 3)))
    add("max_deepcopied", "__import__('copy').deepcopy(torch.tensor(a).max(0))", _floats(17, (2, 3)))
    add("parameter", "torch.nn.Parameter(torch.tensor(a))", _floats(18, (2, 3)))
    add("parameter_frozen", "torch.nn.Parameter(torch.tensor(a), requires_grad=False)", _floats(19, (2,)))
    add("linear_weight", "(torch.manual_seed(0), torch.nn.Linear(2, 2))[1].weight.shape")
    add("dtypes", "(torch.float32, torch.float64, torch.int64, torch.bool, torch.float, torch.long)")
    add("types",
        "(type(torch.tensor(1.)), torch.tensor(1.).__class__, torch.Tensor, torch.Size, type(torch.float32))")
    add("size", "(torch.zeros(2, 3).shape, torch.zeros(()).shape, torch.zeros(2, 3).size(), torch.Size([4]))")
    add("list_of_tensors", "[torch.tensor(a), torch.tensor(a) > 0]", np.array([0.5, -1.]))
    add("tuple_str", "str((torch.tensor(a), torch.tensor(a).long()))", np.array([0.5, -1.]))
    add("tolist_item", "(torch.tensor(a).tolist(), torch.tensor(a)[0].item())", np.array([0.5, -1.]))
    return cases


def _modules(torch):
    nn = torch.nn
    return [
        nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25),
                      nn.Flatten(),
                      nn.Linear(128, 10), nn.LayerNorm(10)),
        nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4), nn.Tanh(), nn.Sigmoid(), nn.Tanh()),
        nn.Sequential(nn.Linear(2, 3, bias=False), nn.Sequential(nn.ReLU(inplace=True), nn.Identity()),
                      nn.Softmax(dim=1), nn.LogSoftmax(dim=-1)),
        nn.Conv2d(1, 2, kernel_size=(3, 5), stride=2, padding=(1, 2), dilation=1, bias=False),
        nn.Conv2d(1, 2, 3, groups=1, padding_mode="zeros"),
        nn.MaxPool2d(3, stride=1, padding=1), nn.MaxPool2d((2, 2)), nn.Dropout(), nn.Flatten(0, 2),
        nn.LayerNorm((4, 5), eps=1e-6, elementwise_affine=False), nn.LayerNorm(3, bias=False),
        nn.ModuleList([nn.Linear(1, 1), nn.ReLU()]), nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.Tanh()}),
        nn.MSELoss(), nn.CrossEntropyLoss(), nn.NLLLoss(), nn.Sequential(),
    ]


def _show(torch, expr, a, opts):
    torch.set_printoptions(**opts)
    try:
        return str(eval(expr, {"torch": torch, "a": a}))
    except Exception as error:      # errors must match too
        return f"{type(error).__name__}: {error}"
    finally:
        torch.set_printoptions(profile="default")


def _as_minigrad(text):
    return re.sub(r"\btorch\.", "minigrad.", text)


@pytest.fixture(autouse=True)
def _default_print_options():
    yield
    for torch in (real_torch, minigrad):
        torch.set_printoptions(profile="default")


@pytest.mark.parametrize("expr, a, opts", _cases())
def test_prints_like_pytorch(expr, a, opts):
    assert _show(minigrad, expr, a, opts) == _as_minigrad(_show(real_torch, expr, a, opts))


def test_modules_print_like_pytorch():
    for ours, theirs in zip(_modules(minigrad), _modules(real_torch)):
        assert repr(ours) == _as_minigrad(repr(theirs))


def test_printoptions_are_kept_until_changed():
    minigrad.set_printoptions(precision=2)
    minigrad.set_printoptions(linewidth=40)     # each call keeps the other options...
    assert repr(minigrad.tensor([1 / 3])) == "tensor([0.33])"
    minigrad.set_printoptions(sci_mode=True)
    minigrad.set_printoptions(precision=3)      # ...except sci_mode, reset to automatic
    assert repr(minigrad.tensor([1 / 3])) == "tensor([0.333])"
    from minigrad._format import get_printoptions
    assert get_printoptions() == real_torch._tensor_str.get_printoptions() | dict(precision=3, linewidth=40)
