"""The PyTorch surface that hook code leans on (issue 10), each compared with torch.

Every test runs the same code through ``minigrad`` and, when installed, ``torch``
(``T`` below is the framework module) and compares values, dtypes, node names and
exception types and messages.
"""
import io
import warnings

import numpy as np
import pytest

import minigrad

FRAMEWORKS = ["minigrad", pytest.param("torch", marks=pytest.mark.torch)]


@pytest.fixture(params=FRAMEWORKS)
def T(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return minigrad


def torch_or_skip():
    return pytest.importorskip("torch")


def both(fn):
    """``fn(T)`` under minigrad and torch (skipped without torch)."""
    torch = torch_or_skip()
    return fn(minigrad), fn(torch)


def arr(t):
    return np.array(t.detach().numpy())


def outcome(fn):
    """What ``fn()`` did: ``("ok", value)`` or ``("raised", type name, message)``."""
    try:
        return ("ok", fn())
    except Exception as exc:        # noqa: BLE001 - the exception is the result compared
        return ("raised", type(exc).__name__, str(exc))


# --- tests and reductions on booleans --------------------------------------------------------------

SPECIAL = [[1.0, float("nan"), 0.0], [float("inf"), -float("inf"), 2.0]]


@pytest.mark.torch
@pytest.mark.parametrize("expr", [
    "x.all()", "x.any()", "x.all(0)", "x.any(1, keepdim=True)", "T.all(x, dim=(0, 1))",
    "T.any(x, -1)", "x.isnan()", "T.isinf(x)", "x.isfinite()", "T.isnan(T.tensor([1, 2]))",
    "T.tensor([1, 0]).all()", "(x > 0).any(0)", "T.tensor([]).all()", "T.tensor([]).any()",
])
def test_boolean_tests_match_torch(expr):
    def run(T):
        x = T.tensor(SPECIAL, requires_grad=True)  # noqa: F841  (read by eval)
        out = eval(expr)
        return arr(out), str(out.dtype).split(".")[-1], out.requires_grad, out.grad_fn
    m, t = both(run)
    np.testing.assert_array_equal(m[0], t[0])
    assert m[1:] == t[1:] == (m[1], False, None)
    assert m[1] == "bool"


@pytest.mark.torch
def test_equal_matches_torch():
    def run(T):
        a = T.tensor([1.0, 2.0], requires_grad=True)
        return (T.equal(a, a.detach()), a.equal(T.tensor([1.0, 2.5])), T.equal(a, T.ones(3)),
                T.equal(T.ones(2), T.ones(2, dtype=T.float64)), T.equal(T.ones(2), T.ones(2, dtype=T.long)),
                type(a.equal(a)).__name__)
    m, t = both(run)
    assert m == t == (True, False, False, True, True, "bool")


# --- gather ------------------------------------------------------------------------------------------

@pytest.mark.torch
@pytest.mark.parametrize("call", [
    "a.gather(1, T.tensor([0, 1]))",
    "a.gather(1, T.tensor([[0.0]]))",
    "a.gather(1, T.tensor([[7]]))",
    "a.gather(0, T.tensor([[0] * 5]))",
    "a.gather(-1, T.tensor([[-1], [0], [-4]]))",
])
def test_gather_errors_and_negative_indices_match_torch(call):
    def run(T):
        a = T.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)  # noqa: F841  (read by eval)
        result = outcome(lambda: eval(call))
        return result if result[0] == "raised" else ("ok", arr(result[1]).tolist())
    m, t = both(run)
    assert m == t


# --- views -------------------------------------------------------------------------------------------

VIEW_CASES = {
    "view": lambda a: a.view(12), "reshape": lambda a: a.reshape(12),
    "reshape-copy": lambda a: a.t().reshape(12), "transpose": lambda a: a.transpose(0, 1),
    "permute": lambda a: a.permute(1, 0), "slice": lambda a: a[1:], "int-index": lambda a: a[1],
    "advanced-index": lambda a: a[[0, 1]], "expand": lambda a: a[:1].expand(3, 4),
    "unsqueeze": lambda a: a.unsqueeze(0), "squeeze": lambda a: a.squeeze(), "t": lambda a: a.t(),
    "detach": lambda a: a.detach(), "data": lambda a: a.data, "unbind": lambda a: a.unbind()[1],
    "split": lambda a: a.split(2)[0], "chunk": lambda a: a.chunk(2)[1], "clone": lambda a: a.clone(),
    "flatten": lambda a: a.flatten(), "T": lambda a: a.T, "mT": lambda a: a.mT,
    "narrow": lambda a: a.narrow(0, 1, 1), "select": lambda a: a.select(1, 0),
    "ravel": lambda a: a.ravel(), "ravel-copy": lambda a: a.t().ravel(),
    "view-of-view": lambda a: a[1:].t(), "float": lambda a: a.float(), "mul": lambda a: a * 1,
}


@pytest.mark.torch
@pytest.mark.parametrize("name", VIEW_CASES)
@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "nonleaf"])
def test_is_view_and_base_match_torch(name, leaf):
    def run(T):
        a = T.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        b = a if leaf else a * 1
        out = VIEW_CASES[name](b)
        return out._is_view(), out._base is b, out._base is None
    m, t = both(run)
    assert m == t


def test_is_view_outputs_share_the_version_counter():
    a = minigrad.ones(2, 3)
    row = a.unbind()[0]
    row.add_(1)
    assert a._version == 1 and row._base is a


# --- devices -----------------------------------------------------------------------------------------

@pytest.mark.torch
@pytest.mark.parametrize("expr", [
    'repr(T.device("cpu"))', 'repr(T.device("cpu", 0))', 'repr(T.device("cpu:0"))', 'str(T.device("cpu:0"))',
    'repr(T.device("cuda"))', 'repr(T.device("cuda:1"))', 'repr(T.device(T.device("cpu")))',
    'T.device("cpu") == T.device("cpu", None)', 'T.device("cpu", 0) == T.device("cpu")',
    'T.device("cpu") == "cpu"', 'T.device("cpu") != "cpu"', '{T.device("cpu"): 1}[T.device("cpu")]',
    'T.device("cpu").type', 'T.device("cpu").index', 'T.device("gpu")', 'T.device("CPU")', 'T.device(0)',
    'repr(T.ones(2).device)', 'T.ones(2).device == T.device("cpu")', 'T.ones(2).device == "cpu"',
    'str(T.ones(2).device)', 'T.ones(2).is_cuda', 'T.ones(2).is_cpu', 'T.ones(2).get_device()',
    'T.cuda.is_available()', 'T.cuda.device_count()',
    'repr(T.zeros(2, device="cpu").device)', 'repr(T.tensor([1.0], device=T.device("cpu")).device)',
    'T.ones(2).to("gpu")',
])
def test_device_objects_match_torch(expr):
    m, t = both(lambda T: outcome(lambda: eval(expr)))
    assert m == t


@pytest.mark.torch
@pytest.mark.parametrize("expr", [
    'x.to("cpu")', 'x.to(T.device("cpu"))', 'x.to(device="cpu")', 'x.to("cpu", T.float64)',
    'x.to(T.float64)', 'x.to(dtype=T.float64)', 'x.to(T.ones(1, dtype=T.float64))', 'x.to(T.float32)',
    'x.to("cpu", copy=True)', 'x.to(T.float32, copy=True)', 'x.to(T.float32, False, True)',
    'x.to(non_blocking=True)', 'x.to(T.int64)', 'x.cpu()', 'x.to("cpu:0", T.float64)',
])
def test_to_matches_torch(expr):
    def run(T):
        x = T.tensor([1.5, -2.0], requires_grad=True)
        y = eval(expr)
        return (y is x, str(y.dtype).split(".")[-1], y.requires_grad,
                None if y.grad_fn is None else y.grad_fn.name(), arr(y).tolist())
    m, t = both(run)
    assert m == t


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2).to("cuda"), lambda T: T.ones(2).cuda(), lambda T: T.zeros(2, device="cuda"),
    lambda T: T.tensor([1.0], device="cuda:0"), lambda T: T.randn(2, device=T.device("cuda")),
    lambda T: T.ones(2).to(T.device("cuda"), T.float64),
])
def test_cuda_is_refused_with_a_message_saying_cpu_only(call):
    # the exception type is PyTorch's without CUDA; the message says what to do
    with pytest.raises(AssertionError, match="CPU only.*device='cpu'"):
        call(minigrad)


def test_other_devices_are_refused_too():
    with pytest.raises(RuntimeError, match="CPU only: it has no 'mps' device"):
        minigrad.ones(2).to("mps")
    assert minigrad.cuda.is_available() is False
    device = "cuda" if minigrad.cuda.is_available() else "cpu"      # the usual script line
    assert minigrad.ones(2, device=device).to(device).device.type == "cpu"


# --- grad mode, SavedTensor, custom Function saved values ---------------------------------------------

@pytest.mark.torch
def test_grad_mode_names_are_where_torch_has_them():
    def run(T):
        a = T.autograd
        return (a.no_grad is T.no_grad, a.enable_grad is T.enable_grad,
                a.set_grad_enabled is T.set_grad_enabled, a.inference_mode is T.inference_mode,
                a.grad_mode.no_grad is T.no_grad, hasattr(a, "SavedTensor"),
                hasattr(a.graph, "allow_mutation_on_saved_tensors"))
    m, t = both(run)
    assert m == t == (True,) * 7


@pytest.mark.torch
def test_inference_mode_and_bare_decorators_match_torch():
    def run(T):
        seen = []
        with T.inference_mode():
            y = T.ones(2, requires_grad=True) * 2
            seen += [y.requires_grad, T.is_grad_enabled(), T.is_inference_mode_enabled()]
            with T.inference_mode(False):
                seen += [T.is_grad_enabled(), T.is_inference_mode_enabled()]
            seen.append(T.is_inference_mode_enabled())
        seen.append(T.is_inference_mode_enabled())

        @T.inference_mode()
        def f(): return T.is_grad_enabled()

        @T.inference_mode
        def g(): return T.is_grad_enabled()

        @T.no_grad
        def h(): return T.is_grad_enabled()

        @T.autograd.no_grad()
        def k(): return T.is_grad_enabled()

        with T.no_grad():
            @T.enable_grad
            def e(): return T.is_grad_enabled()
            seen.append(e())
        return seen + [f(), g(), h(), k(), T.is_grad_enabled()]
    m, t = both(run)
    assert m == t


@pytest.mark.torch
def test_saved_tensor_type_and_custom_function_saved_values_match_torch():
    def run(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2

        x = T.ones(2, requires_grad=True)
        y = Double.apply(x)
        node = y.grad_fn
        raw = node._raw_saved_tensors
        seen = [type(node).__name__, len(raw), type(raw[0]) is T.autograd.SavedTensor,
                node.saved_tensors[0] is x, type(x.exp().grad_fn._raw_saved_result) is T.autograd.SavedTensor]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            seen.append(node.saved_variables[0] is x)
        seen.append([str(w.message) for w in caught])
        y.sum().backward()
        seen.append(outcome(lambda: node.saved_tensors))
        seen.append(outcome(lambda: node._raw_saved_tensors))
        return seen
    m, t = both(run)
    assert m == t


# --- save / load -------------------------------------------------------------------------------------

class NotATensor:
    """A user class: weights_only loading must refuse to rebuild it."""

    def __init__(self, value):
        self.value = value


def _saved_object(T):
    x = T.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)
    y = (x * 2).sum(0)                       # a non-leaf with a graph
    from collections import OrderedDict
    return x, y, {"x": x, "y": y, "again": [x, (x, 3, "three")], "int": T.arange(3),
                  "mask": x > 0, "double": x.detach().double(), "scalar": T.tensor(2.5),
                  "state": OrderedDict([("w", x.detach()), ("steps", 7)]), "dtype": T.float64,
                  "size": x.shape, "device": x.device}


def _describe(obj):
    """A framework-neutral description of a loaded object, for comparison."""
    if hasattr(obj, "requires_grad"):
        return ("tensor", arr(obj).tolist(), str(obj.dtype).split(".")[-1], obj.requires_grad,
                obj.grad_fn is None, obj.is_leaf, obj.grad is None)
    if isinstance(obj, dict):
        return (type(obj).__name__, [(k, _describe(v)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)) and type(obj).__name__ in ("list", "tuple"):
        return (type(obj).__name__, [_describe(v) for v in obj])
    return (type(obj).__name__, str(obj).replace("torch.", "").replace("minigrad.", ""))


@pytest.mark.torch
@pytest.mark.parametrize("target", ["path", "file"])
def test_save_load_round_trip_matches_torch(tmp_path, target):
    def run(T):
        x, y, obj = _saved_object(T)
        x.grad = T.ones(2, 2)                # .grad is not saved
        if target == "path":
            T.save(obj, tmp_path / f"{T.__name__}.pt")
            loaded = T.load(str(tmp_path / f"{T.__name__}.pt"))
        else:
            buffer = io.BytesIO()
            T.save(obj, buffer)
            buffer.seek(0)
            loaded = T.load(buffer, weights_only=True)
        same = loaded["again"][0] is loaded["x"] and loaded["again"][1][0] is loaded["x"]
        return _describe(loaded), same, loaded["x"] is not x
    m, t = both(run)
    assert m == t
    assert m[1] and m[0][1][1][1][3:5] == (True, True)     # y: requires_grad, no grad_fn


def test_save_load_a_module_state_dict_and_parameters(tmp_path):
    nn = minigrad.nn
    model = nn.Linear(3, 2)
    minigrad.save(model.state_dict(), tmp_path / "model.pt")
    other = nn.Linear(3, 2)
    other.load_state_dict(minigrad.load(tmp_path / "model.pt"))
    for a, b in zip(model.parameters(), other.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    minigrad.save(model.weight, tmp_path / "weight.pt")
    weight = minigrad.load(tmp_path / "weight.pt")
    assert type(weight) is nn.Parameter and weight.requires_grad


@pytest.mark.torch
def test_weights_only_refuses_other_classes_as_torch_does(tmp_path):
    def run(T):
        path = tmp_path / f"{T.__name__}-obj.pt"
        T.save({"thing": NotATensor(3), "t": T.ones(1)}, path)
        refused = outcome(lambda: T.load(path))
        allowed = T.load(path, weights_only=False)
        return refused[:2], type(allowed["thing"]).__name__, allowed["thing"].value
    m, t = both(run)
    assert m == t == (("raised", "UnpicklingError"), "NotATensor", 3)
    with pytest.raises(Exception, match="weights_only=False"):
        minigrad.load(tmp_path / "minigrad-obj.pt")


@pytest.mark.torch
def test_a_torch_file_is_refused_with_a_clear_message(tmp_path):
    torch = torch_or_skip()
    torch.save({"w": torch.ones(2)}, tmp_path / "torch.pt")
    with pytest.raises(RuntimeError,
                       match="torch.save writes: minigrad.load reads only files written by minigrad.save"):
        minigrad.load(tmp_path / "torch.pt")
    with pytest.raises(RuntimeError, match="not a file written by minigrad.save"):
        minigrad.load(io.BytesIO(b"hello"))


# --- legacy constructors, Tensor.type, Variable --------------------------------------------------------

def _tensor_result(r):
    if hasattr(r, "requires_grad"):
        return ("tensor", str(r.dtype).split(".")[-1], tuple(r.shape), r.requires_grad,
                arr(r).tolist() if r.numel() else [])
    return r


@pytest.mark.torch
@pytest.mark.parametrize("expr", [
    "T.FloatTensor([1, 2])", "T.FloatTensor(T.ones(2))", "T.FloatTensor(x64)", "T.DoubleTensor(x64) is x64",
    "T.Tensor(x64)", "T.Tensor([1, 2])", "T.Tensor(np.array([1, 2]))", "T.Tensor(np.array([1.5, 2.0]))",
    "T.Tensor([[1, 2], [3, 4]])", "T.Tensor([True])", "T.Tensor((2, 3))", "T.Tensor(T.Size([2, 3])).shape",
    "T.Tensor().shape", "T.FloatTensor().shape", "T.Tensor(3).dtype", "T.Tensor(2, 3).shape",
    "T.LongTensor([1.5, 2])", "T.LongTensor(2).shape", "T.BoolTensor([1, 0])", "T.DoubleTensor(2, 1).dtype",
    "T.Tensor(2, 3.0)", "T.Tensor(2.5)", "T.Tensor(np.float64(2))", 'T.Tensor("a")', "T.FloatTensor(-1)",
    "T.Tensor([1.0], requires_grad=True)", "T.Tensor(T.ones(2, requires_grad=True) * 2)",
    "T.ones(2).type()", "T.ones(2).type(T.DoubleTensor)", 'T.ones(2).type("torch.LongTensor")',
    "T.ones(2).type(T.float64)", 'T.ones(2).type("torch.Foo")', 'T.ones(2).type("FloatTensor")',
    "T.ones(2, requires_grad=True).type(T.float64).grad_fn.name()",
    "T.ones(2, requires_grad=True).type(T.float32).grad_fn",
    "T.ones(2).type(T.FloatTensor, non_blocking=True)",
    "isinstance(T.ones(2), T.FloatTensor)", "isinstance(x64, T.FloatTensor)",
    "isinstance(x64, T.DoubleTensor)",
    "isinstance(T.arange(2), T.LongTensor)", "isinstance(T.ones(2) > 0, T.BoolTensor)",
    "issubclass(T.FloatTensor, T.Tensor)", "type(T.FloatTensor([1])).__name__", "T.FloatTensor.dtype",
    "repr(T.FloatTensor).replace('minigrad', 'torch')", "type(T.FloatTensor).__name__",
    "T.is_tensor(T.LongTensor([1]))",
])
def test_legacy_constructors_and_type_match_torch(expr):
    def run(T):
        x64 = T.ones(2, dtype=T.float64)      # noqa: F841 - used by eval
        r = outcome(lambda: eval(expr))
        if r[0] == "raised":
            return r[:2] if r[1] == "TypeError" else r     # TypeError texts list overloads in torch
        return ("ok", str(_tensor_result(r[1])).replace("torch.", "").replace("minigrad.", ""))
    m, t = both(run)
    assert m == t


@pytest.mark.torch
def test_variable_matches_torch():
    def run(T):
        V = T.autograd.Variable
        t = T.ones(2)
        v = V(t, requires_grad=True)
        w = V(t)
        w[0] = 5                                   # shares data and version counter with t
        y = T.ones(2, requires_grad=True) * 2
        seen = [v.requires_grad, t.requires_grad, v is t, v.is_leaf, arr(t).tolist(), t._version,
                V(y).grad_fn is None, V(y).requires_grad, type(V).__name__,
                isinstance(t, V), isinstance(y, V), isinstance(3, V), V().shape == (0,),
                outcome(lambda: V([1, 2])), outcome(lambda: V(T.ones(2, dtype=T.long), requires_grad=True)),
                hasattr(V._execution_engine, "queue_callback")]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            V(t, volatile=True)
        return seen + [str(w.message) for w in caught]
    m, t = both(run)
    assert m == t


# --- linspace / arange, bit for bit ----------------------------------------------------------------

def _bits(t):
    a = arr(t)
    return str(a.dtype), a.shape, np.ascontiguousarray(a).reshape(-1).view(np.uint8).tobytes()


_RNG = np.random.default_rng(7)
LINSPACE_CASES = [(0, 1, 7), (0, 1, 100), (-3.3, 7.1, 50), (1, 0, 11), (5, -5, 1000), (0.1, 0.7, 13),
                  (1e-3, 1e3, 77), (-1, 1, 2), (2, 2, 5), (0, 1, 1), (0, 1, 0), (-7, 9, 33)] + [
    (float(_RNG.uniform(-100, 100)), float(_RNG.uniform(-100, 100)), int(_RNG.integers(2, 400)))
    for _ in range(30)]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_linspace_is_bit_identical_to_torch(dtype):
    torch = torch_or_skip()
    for start, end, steps in LINSPACE_CASES:
        m = minigrad.linspace(start, end, steps, dtype=getattr(minigrad, dtype))
        t = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        assert _bits(m) == _bits(t), (start, end, steps)
    assert _bits(minigrad.linspace(0, 1, 7)) == _bits(torch.linspace(0, 1, 7))     # default float32


ARANGE_CASES = [(0, 1, 0.1), (0, 10, 1), (-5, 5, 0.3), (1, 0, -0.1), (0.5, 100.25, 0.7), (0, 1, 1 / 3),
                (0, 1000, 0.37), (10, 0, -3), (0, 10, 3), (0.5, 10.7, 2), (3, 3, 1)] + [
    (float(a), float(a + s * _RNG.uniform(1, 300)), float(s))
    for a, s in zip(_RNG.uniform(-50, 50, 20), _RNG.uniform(0.01, 2, 20) * _RNG.choice([-1, 1], 20))]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64", "float16"])
def test_arange_is_bit_identical_to_torch(dtype):
    torch = torch_or_skip()
    for start, end, step in ARANGE_CASES:
        if dtype == "float16" and abs((end - start) / step) > 2000:
            continue
        m = outcome(lambda: _bits(minigrad.arange(start, end, step,
                                                  dtype=dtype and getattr(minigrad, dtype))))
        t = outcome(lambda: _bits(torch.arange(start, end, step, dtype=dtype and getattr(torch, dtype))))
        assert m == t, (start, end, step)
    assert _bits(minigrad.arange(5)) == _bits(torch.arange(5))


@pytest.mark.torch
@pytest.mark.parametrize("call", ["T.arange(0, 5, -1)", "T.arange(0, 5, 0)", "T.arange(5, 0)",
                                  "T.linspace(0, 1, -1)", "T.arange(0, 0)", "T.arange(T.tensor(3))"])
def test_range_errors_and_edges_match_torch(call):
    m, t = both(lambda T: outcome(lambda: _bits(eval(call))))
    assert m == t


# --- float16 -------------------------------------------------------------------------------------------

HALF_X = np.random.default_rng(0).uniform(-3, 3, (4, 5)).astype(np.float16)
HALF_Y = np.random.default_rng(1).uniform(0.2, 3, (4, 5)).astype(np.float16)
HALF_EXPRS = [
    "x + y", "x - y", "x * y", "x / y", "x ** 2", "y ** 0.5", "y.sqrt()", "x.exp()", "y.log()",
    "x.tanh()", "x.sigmoid()", "x.relu()", "x.sin()", "x.cos()", "x.abs()", "-x", "x * 1.7",
    "x + 1e-3", "2.5 / y", "x.sum()", "x.sum(0)", "x.mean()", "x.mean(1)", "x.var()", "x.std(0)",
    "x.max()", "x.softmax(1)", "x.log_softmax(0)", "x @ y.t()", "x.float()", "x.double()", "x.half()",
    "x.clamp(-1, 1)", "x.reciprocal()", "x * T.ones(5)", "x + T.arange(5)", "x.norm()",
    "T.where(x > 0, x, y)", "x[1:3, ::2] * 3", "T.cat([x, y])", "x.masked_fill(x > 1, 0.5)",
    "T.maximum(x, y)", "T.tensor(np.array([0.1, 2049.0001, 7e4]), dtype=T.float64).half()",
    "T.arange(3000).half()", "T.tensor([1.0, 2.0]).to(T.float16)", "T.ones(2, dtype=T.half)",
    "T.tensor([0.1], dtype=T.float16)", "T.HalfTensor([0.1, 3])", "x.type(T.HalfTensor)",
]


@pytest.mark.torch
@pytest.mark.parametrize("expr", HALF_EXPRS)
def test_float16_ops_are_bit_identical_to_torch(expr):
    def run(T):
        x, y = T.tensor(HALF_X), T.tensor(HALF_Y)       # noqa: F841 - used by eval
        return _bits(eval(expr))
    m, t = both(run)
    assert m == t


@pytest.mark.torch
def test_float16_dtype_surface_matches_torch():
    def run(T):
        h = T.ones(2, dtype=T.half, requires_grad=True)
        return [str(v) for v in (
            T.half is T.float16, repr(T.float16).split(".")[-1], T.float16.itemsize,
            (h + T.tensor([1, 2])).dtype, (h + 1.5).dtype, (h * T.ones(2)).dtype, h.half() is h,
            h.type(), T.tensor(np.ones(2, np.float16)).dtype, T.from_numpy(np.ones(2, np.float16)).dtype,
            h.is_floating_point(), isinstance(h, T.HalfTensor), h.element_size(),
            outcome(lambda: setattr(h, "grad", T.ones(2))),
            outcome(lambda: setattr(T.ones(2, requires_grad=True), "grad", h.detach())),
            outcome(lambda: setattr(T.ones(2, dtype=T.float64, requires_grad=True), "grad",
                                    T.ones(2, dtype=T.long))))]
    m, t = both(run)
    assert [v.replace("torch.", "").replace("minigrad.", "") for v in m] == \
        [v.replace("torch.", "").replace("minigrad.", "") for v in t]


@pytest.mark.torch
def test_float16_backward_is_bit_identical_to_torch():
    def run(T):
        x = T.tensor(HALF_X, requires_grad=True)
        w = T.tensor(HALF_Y, requires_grad=True)
        # ops whose backward formula is one op in both (tanh's or softmax's backward are
        # fused kernels in PyTorch, a few float16 roundings apart from minigrad's formulas)
        y = ((x * w).exp() @ w.t()) / 3 - x.sum(1, keepdim=True)
        (y * T.tensor(HALF_Y[:, :4])).sum().backward()
        return _bits(y), _bits(x.grad), _bits(w.grad), x.grad.dtype == T.float16
    m, t = both(run)
    assert m == t


@pytest.mark.torch
def test_packing_saved_activations_to_half_gives_torchs_gradients():
    def run(T):
        x = T.tensor(HALF_X.astype(np.float32), requires_grad=True)
        w = T.tensor(HALF_Y.astype(np.float32), requires_grad=True)
        packed = []

        def pack(t):
            packed.append(str(t.dtype))
            return t.half()

        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t.float()):
            y = (x * w).sin().exp().sum()
        y.backward()
        return _bits(x.grad), _bits(w.grad), len(packed)
    m, t = both(run)
    assert m == t


# --- allow_mutation_on_saved_tensors ---------------------------------------------------------------

def _mutation_scenario(T, name):
    allow = T.autograd.graph.allow_mutation_on_saved_tensors
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    if name == "clone-mul_":
        with allow():
            y = x.clone()
            z = y * y                       # saves y
            y.mul_(2)
            z.sum().backward()
        return arr(y), arr(x.grad)
    if name == "leaf-under-no_grad":
        with allow():
            z = x * x
            with T.no_grad():
                x.mul_(2)
            z.sum().backward()
        return arr(x), arr(x.grad)
    if name == "saved-output":
        with allow():
            b = x.exp()                     # saves its result
            b.add_(1)
            b.sum().backward()
        return arr(b), arr(x.grad)
    if name == "setitem-on-a-view":
        with allow():
            y = x.clone()
            z = (y * y).sum()
            with T.no_grad():
                y[1:][0] = 10.0             # through a view of y's memory
            z.backward()
        return arr(y), arr(x.grad)
    if name == "sin_-docstring-example":
        with allow():
            a = T.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.sum().backward()
        return arr(b), arr(a.grad)
    if name == "backward-after-exit":
        with allow():
            y = x.clone()
            z = y * y
            y.mul_(2)
        return outcome(lambda: z.sum().backward())[:2]
    if name == "nested":
        def nest():
            with allow():
                with allow():
                    pass
        return outcome(nest)
    if name == "without-it":
        y = x.clone()
        z = y * y
        y.mul_(2)
        return outcome(lambda: z.sum().backward())[:2]
    if name == "state-cleared-on-exit":
        with allow() as ctx:
            y = x.clone()
            z = y * y           # noqa: F841
        with allow():
            pass                # a second block may open once the first is closed
        return type(ctx).__name__
    raise AssertionError(name)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["clone-mul_", "leaf-under-no_grad", "saved-output",
                                  "sin_-docstring-example", "backward-after-exit", "nested", "without-it",
                                  "state-cleared-on-exit"])
def test_allow_mutation_on_saved_tensors_matches_torch(name):
    m, t = both(lambda T: _mutation_scenario(T, name))
    if isinstance(m, tuple) and m and isinstance(m[0], np.ndarray):
        for a, b in zip(m, t):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    else:
        assert m == t


def test_allow_mutation_sees_writes_through_views_at_an_offset():
    """A deliberate difference: PyTorch 2.13 recognises the saved tensor by its data
    pointer, so a write through ``y[1:]`` or ``y[1] = ...`` is missed there and backward
    sees the new value (gradient 20 below); minigrad copies on any write to the memory."""
    y, grad = _mutation_scenario(minigrad, "setitem-on-a-view")
    assert y.tolist() == [1.0, 10.0, 3.0]
    assert grad.tolist() == [2.0, 4.0, 6.0]


# --- operands that are not tensors or numbers ---------------------------------------------------

@pytest.mark.torch
@pytest.mark.parametrize("expr", [
    "None + x", "x + None", "x * None", "None * x", "x - None", "None - x", "x / None", "None / x",
    "x ** None", "None ** x", "x @ None", "x < None", "x == None", "x != None", "x == [1.0, 2.0]",
    "x + [1.0, 2.0]", "x + 'a'", "(x > 1) & None", "x.add(None)", "x.sub(None)", "x.mul(None)",
    "x.div(None)", "x.maximum(None)", "x.add([1.0, 2.0])", "x.clone().add_(None)",
    "x.clone().mul_(None)", "x.clone().copy_(None)", "x + np.array([1.0, 2.0])", "2 - x",
])
def test_none_and_lists_as_operands_raise_as_in_torch(expr):
    """PyTorch turns a TypeError in an operator into NotImplemented (so Python raises
    "unsupported operand type(s)", and ``==`` falls back to identity), and its methods
    name the argument. A missing gradient (``None``) added to a tensor is a common bug
    in a hook; it must fail there, not become NaN."""
    def run(T):
        x = T.tensor([1.0, 2.0])
        got = outcome(lambda: eval(expr, {"np": np}, {"x": x}))
        return got if got[0] == "raised" else ("ok", arr(got[1]).tolist() if hasattr(got[1],
                                                                                     "detach") else got[1])
    m, t = both(run)
    assert m == t


def test_an_inplace_op_with_a_bad_operand_changes_nothing():
    x = minigrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError,
                       match=r"add_\(\): argument 'other' \(position 1\) must be Tensor, not NoneType"):
        x.add_(None)
    assert x.tolist() == [1.0, 2.0] and x._version == 0
