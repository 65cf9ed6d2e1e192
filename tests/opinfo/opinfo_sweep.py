"""PyTorch's own op and module test databases, run on minigrad and compared with PyTorch.

    python tests/opinfo/opinfo_sweep.py                  # everything; the summary line last
    python tests/opinfo/opinfo_sweep.py --only acos --only 'linalg.*'    # some entries, each shown
    python tests/opinfo/opinfo_sweep.py --only 'special.*' --update      # record them in expected.json
    python tests/opinfo/opinfo_sweep.py --update         # rewrite expected.json from a full run

For every entry of ``torch.testing._internal.common_methods_invocations.op_db`` that
supports float32 on the CPU, the first :data:`SAMPLES` samples of
``sample_inputs("cpu", torch.float32, requires_grad=...)`` (PyTorch's generator seeded
with 0 before each entry) are converted to minigrad (``opinfo_convert``) and run the way
the entry runs them: its function, method, in-place and operator variants. Three stages,
each needing the one before it:

1. **values**: every variant's result has PyTorch's type, dtype, shape and values
   (``torch.testing.assert_close``'s tolerances for the dtype, or larger ones the entry
   sets for float32 with ``toleranceOverride``/``precisionOverride``); an in-place variant
   returns its input. Entries that draw random numbers (PyTorch marks them
   non-deterministic, or seeds them with ``wrapper_set_seed``) are compared on dtype and
   shape only: minigrad's generator is not PyTorch's.
2. **gradients**: for the function and in-place variants, ``autograd.grad`` of every
   result that requires grad, for a fixed random cotangent, with respect to every sample
   tensor that requires grad, equals PyTorch's (None where PyTorch's is None).
3. **stream**: the same forward and backward under a logging ``TorchDispatchMode`` show
   the same aten calls: overload names, positional arguments (tensors by shape and dtype,
   Python scalars by value, lists as lists) and keyword names.

A variant or sample that PyTorch itself rejects (it raises) is skipped: there is nothing
to compare. Each entry ends as *passes* or fails at the first stage that fails, with a
short cause (``missing: minigrad.acos``, ``TypeError: unexpected keyword rounding_mode``,
``values differ at index (0, 1)...``), or is *left out* by a rule of ``opinfo_groups``
(devices, sparse storage, complex results, deprecated): left out entries are not in the
denominator. ``module_db`` gets the same three stages: each module is built from the
sample's constructor arguments on both sides, minigrad's loads PyTorch's parameters and
buffers, then forward (outputs and buffers after it), backward (input and parameter
gradients) and the stream are compared.

The run prints one summary line, writes ``build/opinfo/op_db.json`` and
``build/opinfo/module_db.json`` (every entry: status, stage, cause, family, seconds) and
compares the outcome with ``tests/opinfo/expected.json``, which lists every entry that
fails now (with its stage and cause) and every entry left out (with its reason). Exit
status 1 when they differ: an entry that fails and is not listed (or fails at an earlier
stage) is a regression; a listed entry that passes (or gets further) must be lifted with
``--update``. ``tests/opinfo/test_opinfo.py`` runs the same sweep in one pytest item.
"""
import argparse
import contextlib
import copy
import fnmatch
import importlib
import json
import math
import sys
import time
import types
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(REPO_ROOT))

from minigrad.utils._cli import write_atomically  # noqa: E402
import opinfo_convert  # noqa: E402
from opinfo_convert import CannotConvert, Missing, ToMinigrad, counterpart, resolve  # noqa: E402
import opinfo_groups  # noqa: E402

EXPECTED = HERE / "expected.json"
RESULTS = REPO_ROOT / "build" / "opinfo"
SAMPLES = 3                     # the first samples of each entry
SEED = 0                        # PyTorch's, Python's and numpy's generators, before each sample
# an entry without float32 on the CPU runs in the first of these it supports (not in the figures)
OTHER_DTYPES = ("float64", "int64", "bool", "int32", "float16")
ENTRY_SECONDS = 120             # an entry still running after this fails (see _time_limit)
STAGES = ("values", "gradients", "stream")
DATABASES = ("op_db", "module_db")
# torch.testing.assert_close's default (rtol, atol) per dtype name
DEFAULT_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                      "float64": (1e-7, 1e-7)}


class Mismatch(Exception):
    """minigrad differs from PyTorch at ``stage``: ``cause`` says how, in a line."""

    def __init__(self, stage, cause, details=()):
        super().__init__(f"{stage}: {cause}")
        self.stage, self.cause, self.details = stage, cause, list(details)


class LeftOut(Exception):
    """The entry falls in a left-out group (found while running: complex results)."""


@dataclass
class Result:
    name: str
    family: str
    status: str                 # "pass", "fail" or "left out"
    stage: str = None           # the first failing stage
    cause: str = ""             # why it fails, or why it is left out
    samples: int = 0            # samples run
    seconds: float = 0.0
    details: list = field(default_factory=list, repr=False)   # shown with --only, not saved
    dtype: str = "float32"      # the samples' dtype: float32, or the entry's own when it has no float32

    def passes(self, stage):
        """Whether the entry passes ``stage`` (and so every stage before it)."""
        if self.status == "fail":
            return STAGES.index(self.stage) > STAGES.index(stage)
        return self.status == "pass"


@dataclass
class Sweep:
    database: str
    results: list = field(default_factory=list)
    seconds: float = 0.0

    def counts(self):
        """The figures of the summary line: entries with float32 samples, not left out, and
        how many pass each stage; the same for the entries run in another dtype."""
        float32 = [r for r in self.results if r.dtype == "float32"]
        counted = [r for r in float32 if r.status != "left out"]
        others = [r for r in self.results if r.dtype != "float32" and r.status != "left out"]
        return {"entries": len(counted), "left_out": sum(r.status == "left out" for r in self.results),
                **{stage: sum(r.passes(stage) for r in counted) for stage in STAGES},
                "other_dtypes": len(others), "other_dtypes_passing": sum(r.status == "pass" for r in others)}


# ---------------------------------------------------------------------------------------
# describing what minigrad raised

def describe(exc):
    """A one-line cause for an exception minigrad raised."""
    import re
    if isinstance(exc, Missing):
        return f"missing: {exc.args[0]}"
    if isinstance(exc, CannotConvert):
        return str(exc)
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    match = re.match(r"module '([\w.]+)' has no attribute '(\w+)'", line)
    if match:
        return f"missing: {match.group(1)}.{match.group(2)}"
    match = re.match(r"(?:'Tensor' object|type object 'Tensor') has no attribute '(\w+)'", line)
    if match:
        return f"missing: {opinfo_convert.TARGET.__name__}.Tensor.{match.group(1)}"
    match = re.search(r"unexpected keyword argument '(\w+)'", line)
    if match:
        return f"TypeError: unexpected keyword {match.group(1)}"
    if len(line) > 160:
        line = line[:157] + "..."
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


# ---------------------------------------------------------------------------------------
# comparing results

def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _is_mg_tensor(x):
    return isinstance(x, opinfo_convert.TARGET.Tensor)


def _torch_array(t):
    import torch
    t = t.detach().resolve_neg().resolve_conj()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy(force=True)   # force: a ZeroTensor too


def _mg_array(t):
    """A minigrad tensor's values as numpy: bfloat16 through float32 (``numpy()`` refuses
    it, as PyTorch's does)."""
    t = t.detach()
    return (t.float() if _dtype_name(t.dtype) == "bfloat16" else t).numpy()


def _first_difference(expected, actual, rtol, atol, reference=None):
    """None, or a description of the first element that differs. With ``reference``
    (PyTorch's float64 result), an element off PyTorch's float32 result still passes when
    it is as close to the float64 one as PyTorch's is, within the tolerance: float32
    rounding (a sum whose terms cancel) is not held against minigrad."""
    if expected.dtype.kind in "fc":
        with np.errstate(invalid="ignore", over="ignore"):
            e64, a64 = expected.astype(np.float64), actual.astype(np.float64)
            close = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
            close |= (e64 == a64)                  # the same infinity
            if reference is not None and not close.all():
                close |= np.abs(a64 - reference) <= np.abs(e64 - reference) + atol + rtol * np.abs(reference)
    else:
        close = expected == actual
    if close.all():
        return None
    bad = np.argwhere(~close)
    index = tuple(int(i) for i in bad[0])
    e, a = expected[index] if index else expected[()], actual[index] if index else actual[()]
    return (f"values differ at index {index}: expected {_short(e)}, got {_short(a)} "
            f"({len(bad)} of {expected.size} elements)")


class Reference:
    """PyTorch's result in float64 for the same call (``compute()``), made the first time
    a float32 comparison fails; None where it cannot be had."""

    def __init__(self, compute):
        self._compute, self._tree, self._done = compute, None, False

    def at(self, path, shape):
        import torch
        if not self._done:
            self._done = True
            try:
                with _quiet():
                    self._tree = self._compute()
            except Exception:
                self._tree = None
        node = self._tree
        for i in path:
            if not isinstance(node, (tuple, list)) or i >= len(node):
                return None
            node = node[i]
        if isinstance(node, torch.Tensor) and node.is_floating_point() and tuple(node.shape) == shape:
            return node.detach().double().numpy(force=True)
        return None


def _short(value):
    value = value.item() if hasattr(value, "item") else value
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def compare(expected, actual, where, tolerances, by_value=True, stage="values", reference=None, path=()):
    """Raise :class:`Mismatch` unless minigrad's ``actual`` matches PyTorch's ``expected``
    (a tensor, a number, None, or a tuple or list of them); ``reference``: a
    :class:`Reference` for the same result, ``path`` the place in it."""
    import torch
    if isinstance(expected, torch.Tensor):
        if not _is_mg_tensor(actual):
            raise Mismatch(stage, f"{where}: expected a Tensor, got {type(actual).__name__}")
        e_dtype, a_dtype = _dtype_name(expected.dtype), _dtype_name(actual.dtype)
        if e_dtype != a_dtype:
            raise Mismatch(stage, f"{where}: dtype {a_dtype}, expected {e_dtype}")
        if tuple(expected.shape) != tuple(actual.shape):
            raise Mismatch(stage, f"{where}: shape {tuple(actual.shape)}, expected {tuple(expected.shape)}")
        if by_value:
            rtol, atol = tolerances.get(e_dtype, (0.0, 0.0))
            e_array = _torch_array(expected)
            a_array = _torch_array(actual) if isinstance(actual, torch.Tensor) else _mg_array(actual)
            difference = _first_difference(e_array, a_array, rtol, atol)
            if difference and reference is not None and e_array.dtype.kind == "f":
                difference = _first_difference(e_array, a_array, rtol, atol,
                                               reference.at(path, tuple(expected.shape)))
            if difference:
                raise Mismatch(stage, f"{where}: {difference}")
        return
    if isinstance(expected, torch.Size):
        if not isinstance(actual, tuple) or tuple(actual) != tuple(expected):
            raise Mismatch(stage, f"{where}: expected torch.Size({list(expected)}), got {actual!r}")
        return
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or isinstance(actual, list) != isinstance(expected, list):
            raise Mismatch(stage, f"{where}: expected a {type(expected).__name__}, "
                                  f"got {type(actual).__name__}")
        fields = getattr(type(expected), "_fields", None)
        if fields is not None and getattr(type(actual), "_fields", None) != fields:
            raise Mismatch(stage, f"{where}: expected a named tuple with fields {fields}, "
                                  f"got {type(actual).__name__}")
        if len(expected) != len(actual):
            raise Mismatch(stage, f"{where}: {len(actual)} items, expected {len(expected)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{where}[{i}]", tolerances, by_value, stage, reference, path + (i,))
        return
    if isinstance(expected, torch.dtype):
        if str(actual).rsplit(".", 1)[-1] != _dtype_name(expected):
            raise Mismatch(stage, f"{where}: expected {expected}, got {actual!r}")
        return
    if expected is None or isinstance(expected, (bool, int, float, complex, str)):
        if type(actual) is not type(expected):
            raise Mismatch(stage, f"{where}: expected a {type(expected).__name__}, "
                                  f"got {type(actual).__name__}")
        if by_value and actual != expected and not (isinstance(expected, float) and (
                math.isclose(actual, expected, rel_tol=1.3e-6, abs_tol=1e-5)
                or (math.isnan(actual) and math.isnan(expected)))):
            raise Mismatch(stage, f"{where}: expected {expected!r}, got {actual!r}")
        return
    raise Mismatch(stage, f"{where}: cannot compare a {type(expected).__module__}.{type(expected).__name__}")


def _tensors_requiring_grad(tree):
    """The PyTorch tensors of a nest that require grad, each once, in order."""
    import torch
    found = {}
    for x in leaves(tree):
        if isinstance(x, torch.Tensor) and x.requires_grad:
            found.setdefault(id(x), x)
    return list(found.values())


def leaves(tree):
    """The leaves of nested lists, tuples and dicts, in order."""
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


# ---------------------------------------------------------------------------------------
# the aten stream

def _arg_text(value):
    """An aten argument as the stream shows it: a tensor by shape and dtype, a Python
    scalar by value, a list as a list."""
    import torch
    if isinstance(value, torch.Tensor) or _is_mg_tensor(value):
        return f"T{list(value.shape)}:{_dtype_name(value.dtype)}"
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return repr(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_arg_text(v) for v in value) + "]"
    if isinstance(value, (torch.dtype, opinfo_convert.TARGET.dtype)):
        return _dtype_name(value)
    if type(value).__name__ in ("device", "memory_format", "layout"):
        return str(value).rsplit(".", 1)[-1]
    return type(value).__name__


def _call_text(func, args, kwargs):
    text = str(func) + "(" + ", ".join(_arg_text(a) for a in args)
    if kwargs:
        text += "; " + ", ".join(kwargs)
    return text + ")"


@contextlib.contextmanager
def logging_mode(framework):
    """``with logging_mode(torch or minigrad) as calls:`` collects the aten calls a
    ``TorchDispatchMode`` of that framework sees, as text."""
    module = importlib.import_module(f"{framework.__name__}.utils._python_dispatch")
    TorchDispatchMode = module.TorchDispatchMode

    calls = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            calls.append(_call_text(func, args, kwargs))
            return func(*args, **kwargs)

    with Log():
        yield calls


def compare_streams(expected, actual, where):
    details = ([f"PyTorch's stream ({where}):"] + [f"  {c}" for c in expected]
               + ["minigrad's stream:"] + [f"  {c}" for c in actual])
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e != a:
            e_name, a_name = e.split("(", 1)[0], a.split("(", 1)[0]
            if e_name != a_name:
                raise Mismatch("stream", f"{where}: call {i}: expected {e_name}, got {a_name}", details)
            raise Mismatch("stream", f"{where}: call {i}: expected {e}, got {a}", details)
    if len(expected) != len(actual):
        i = min(len(expected), len(actual))
        extra = (f"missing {expected[i].split('(', 1)[0]}" if len(expected) > len(actual)
                 else f"extra {actual[i].split('(', 1)[0]}")
        raise Mismatch("stream", f"{where}: {len(actual)} calls, expected {len(expected)} "
                                 f"({extra} at call {i})", details)


# ---------------------------------------------------------------------------------------
# running an OpInfo entry

def entry_name(op):
    return op.name + (f":{op.variant_test_name}" if op.variant_test_name else "")


def _skip_reasons(decorate_infos, cls_name, test_name, dtype):
    """The reasons of the unittest skips PyTorch applies to one of its tests of an entry."""
    from torch.testing._internal.opinfo.core import DecorateInfo
    reasons = []
    for info in decorate_infos:
        if isinstance(info, DecorateInfo) and info.is_active(cls_name, test_name, "cpu", dtype, {}):
            for decorator in info.decorators:
                for cell in getattr(decorator, "__closure__", None) or ():
                    with contextlib.suppress(ValueError):
                        if isinstance(cell.cell_contents, str):
                            reasons.append(cell.cell_contents)
    return reasons


def compared_by_value(op, dtype):
    """False for entries that draw random numbers: PyTorch marks them non-deterministic
    in its CPU-to-device comparison, or seeds them with ``wrapper_set_seed``."""
    reasons = _skip_reasons(op.decorators, "TestCommon", "test_compare_cpu", dtype)
    if any("non-deterministic" in reason for reason in reasons):
        return False
    for fn in (op.op, op.method_variant, op.inplace_variant):
        code = getattr(fn, "__code__", None)
        if code is not None and "wrapper_set_seed" in code.co_names:
            return False
    return True


def tolerances_for(decorators, dtype):
    """assert_close's (rtol, atol) per dtype name, raised to any larger tolerance the
    entry sets for ``dtype`` on the CPU (toleranceOverride, precisionOverride)."""
    from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo
    rtol, atol = DEFAULT_TOLERANCES.get(_dtype_name(dtype), (0.0, 0.0))
    for info in decorators:
        if not isinstance(info, DecorateInfo) or info.device_type not in (None, "cpu"):
            continue
        if info.dtypes is not None and dtype not in info.dtypes:
            continue
        for decorator in info.decorators:
            if isinstance(decorator, toleranceOverride) and dtype in decorator.d:
                atol, rtol = max(atol, decorator.d[dtype].atol), max(rtol, decorator.d[dtype].rtol)
            elif isinstance(decorator, precisionOverride) and dtype in decorator.d:
                atol = max(atol, decorator.d[dtype])
    tolerances = dict(DEFAULT_TOLERANCES)
    if dtype.is_floating_point:
        tolerances[_dtype_name(dtype)] = (rtol, atol)
    return tolerances


def _clone(tree, memo=None, double=False):
    """A copy of a sample's values: fresh contiguous leaf tensors (same values and
    requires_grad; floating ones in float64 with ``double``), the same nesting; a tensor
    passed twice stays one tensor. Contiguous, because minigrad's arrays have no strides
    to match, and PyTorch's results (``as_strided``) and aten calls (``mm``'s backward)
    depend on them."""
    import torch
    memo = {} if memo is None else memo
    if isinstance(tree, torch.Tensor):
        if id(tree) not in memo:
            copy = tree.detach().clone(memory_format=torch.contiguous_format)
            if double and copy.is_floating_point():
                copy = copy.double()
            memo[id(tree)] = copy.requires_grad_(tree.requires_grad)
        return memo[id(tree)]
    if isinstance(tree, list):
        return [_clone(item, memo, double) for item in tree]
    if isinstance(tree, tuple) and not isinstance(tree, torch.Size):
        return tuple(_clone(item, memo, double) for item in tree)
    if isinstance(tree, dict):
        return {key: _clone(value, memo, double) for key, value in tree.items()}
    return tree


class Call:
    """One sample as both frameworks get it: PyTorch's fresh copy and minigrad's conversion."""

    def __init__(self, sample, stage):
        import torch
        self.torch = _clone((sample.input, tuple(sample.args), dict(sample.kwargs)))
        if any(isinstance(x, torch.Tensor) and x.is_complex() for x in leaves(self.torch)):
            raise LeftOut(opinfo_groups.REASONS["complex"])
        self.convert = ToMinigrad()
        try:
            self.minigrad = self.convert(self.torch)
        except (CannotConvert, Missing) as exc:
            raise Mismatch(stage, describe(exc)) from None

    def leaves_requiring_grad(self):
        return _tensors_requiring_grad(self.torch)


def _invoke(kind, fn, call):
    """Run a variant the way OpInfo tests run it: ``fn(input, *args, **kwargs)``; an
    in-place variant gets a clone of the input. Returns (result, the input it got)."""
    inp, args, kwargs = call
    if kind.startswith("inplace"):
        inp = inp.clone()
    return fn(inp, *args, **kwargs), inp


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            yield


class EntryRun:
    """One OpInfo entry: its variants on both sides and the stages over its samples."""

    def __init__(self, op, dtype):
        self.op, self.dtype = op, dtype
        self.name = entry_name(op)
        self.by_value = compared_by_value(op, dtype)
        self.tolerances = tolerances_for(op.decorators, dtype)
        kinds = (("function", op.op), ("method", op.method_variant), ("inplace", op.inplace_variant),
                 ("operator", getattr(op, "operator_variant", None)),
                 ("inplace operator", getattr(op, "inplace_operator_variant", None)))
        self.variants = {kind: fn for kind, fn in kinds if fn is not None}
        self.compared = 0           # variant results compared at the values stage

    def minigrad_variant(self, kind, convert):
        try:
            name = self.op.name if kind == "function" else None
            return counterpart(self.variants[kind], convert, name=name)
        except (CannotConvert, Missing) as exc:
            raise Mismatch("values", describe(exc)) from None

    def values(self, sample):
        """Every variant on the sample; the first mismatch is raised after all of them
        ran, so each variant minigrad has is called."""
        mismatches = []
        for kind, fn in self.variants.items():
            try:
                self.variant_values(kind, fn, sample)
            except Mismatch as mismatch:
                mismatches.append(mismatch)
        if mismatches:
            raise mismatches[0]

    def variant_values(self, kind, fn, sample):
        call = Call(sample, "values")
        mg_fn = self.minigrad_variant(kind, call.convert)
        try:
            expected, expected_input = _invoke(kind, fn, call.torch)
        except Exception:
            return                  # PyTorch rejects this sample for this variant
        if kind == "function":
            reason = opinfo_groups.complex_result_reason(expected)
            if reason:
                raise LeftOut(reason)
        try:
            actual, actual_input = _invoke(kind, mg_fn, call.minigrad)
        except Exception as exc:
            raise Mismatch("values", describe(exc)) from None
        reference = Reference(lambda: _invoke(kind, fn, _clone(call.torch, double=True))[0])
        compare(expected, actual, kind, self.tolerances, self.by_value, reference=reference)
        self.compared += 1
        if kind.startswith("inplace") and expected is expected_input and actual is not actual_input:
            raise Mismatch("values", f"{kind}: returns a new tensor, not its input")

    def gradients(self, sample, stage="gradients"):
        log = stage == "stream"
        for kind in ("function", "inplace"):
            if kind not in self.variants:
                continue
            call = Call(sample, stage)
            mg_fn = self.minigrad_variant(kind, call.convert)

            def torch_forward(torch_call, kind=kind):
                return sample.output_process_fn_grad(_invoke(kind, self.variants[kind], torch_call)[0])

            def minigrad_forward(kind=kind, convert=call.convert):
                out = _invoke(kind, mg_fn, call.minigrad)[0]
                return counterpart(sample.output_process_fn_grad, convert)(out)

            inputs = call.leaves_requiring_grad()
            expected = torch_backward(lambda: torch_forward(call.torch), inputs, log)
            if expected is None:
                continue                # PyTorch rejects this sample for this variant
            mg_inputs = [call.convert.tensor_for(t) for t in inputs]
            actual = minigrad_backward(minigrad_forward, expected, mg_inputs, stage, log, kind)
            if log:
                compare_streams(expected.calls, actual.calls, kind)
                continue

            def reference(call_torch=call.torch, forward=torch_forward):
                double = _clone(call_torch, double=True)
                return torch_backward(lambda: forward(double), _tensors_requiring_grad(double),
                                      cotangents=expected.cotangents).grads

            compare_gradients(expected, actual, [f"input {j}" for j in range(len(inputs))], kind,
                              self.tolerances, self.by_value, stage, Reference(reference))

    def stream(self, sample):
        self.gradients(sample, stage="stream")


@dataclass
class Backward:
    """One forward and backward pass: the results, which of them were differentiated,
    the cotangents, the gradients (None when nothing was differentiated) and, with a
    logging mode, the aten calls."""
    outs: list
    positions: list
    cotangents: list
    grads: tuple = None
    calls: list = field(default_factory=list)


def torch_backward(forward, inputs, log=False, cotangents=None):
    """PyTorch's forward (``forward()``) and ``autograd.grad`` of every result that
    requires grad with respect to ``inputs``, for fixed cotangents; None when PyTorch
    raises (nothing to compare)."""
    import torch
    try:
        with logging_mode(torch) if log else contextlib.nullcontext([]) as calls:
            outs = leaves(forward())
        positions = [i for i, o in enumerate(outs) if isinstance(o, torch.Tensor) and o.requires_grad]
        if cotangents is None:
            cotangents = [_cotangent(outs[i], i) for i in positions]
        done = Backward(outs, positions, cotangents, calls=list(calls))
        if positions and inputs:
            grad_outputs = [torch.from_numpy(c).to(outs[i].dtype) for i, c in zip(positions, cotangents)]
            with logging_mode(torch) if log else contextlib.nullcontext([]) as calls:
                done.grads = torch.autograd.grad([outs[i] for i in positions], inputs, grad_outputs,
                                                 allow_unused=True)
            done.calls += calls
        return done
    except Exception:
        return None


def minigrad_backward(forward, expected, inputs, stage, log, where):
    """minigrad's side of :func:`torch_backward` (the cotangents PyTorch's got); what
    minigrad raises, or a result that does not require grad where PyTorch's does, is a
    :class:`Mismatch` at ``stage``."""
    try:
        with logging_mode(opinfo_convert.TARGET) if log else contextlib.nullcontext([]) as calls:
            outs = leaves(forward())
        done = Backward(outs, expected.positions, expected.cotangents, calls=list(calls))
        if expected.grads is None:
            return done
        if len(outs) != len(expected.outs):
            raise Mismatch(stage, f"{where}: {len(outs)} results, expected {len(expected.outs)}")
        for i in expected.positions:
            if not (_is_mg_tensor(outs[i]) and outs[i].requires_grad):
                raise Mismatch(stage, f"{where}: result {i} does not require grad")
        target = opinfo_convert.TARGET
        grad_outputs = [target.tensor(c, dtype=outs[i].dtype)
                        for i, c in zip(expected.positions, expected.cotangents)]
        with logging_mode(target) if log else contextlib.nullcontext([]) as calls:
            done.grads = target.autograd.grad([outs[i] for i in expected.positions], inputs, grad_outputs,
                                                allow_unused=True)
        done.calls += calls
        return done
    except Mismatch:
        raise
    except Exception as exc:
        raise Mismatch(stage, describe(exc)) from None


def compare_gradients(expected, actual, names, where, tolerances, by_value, stage, reference):
    if expected.grads is None:
        return
    for j, (name, e, a) in enumerate(zip(names, expected.grads, actual.grads)):
        if (e is None) != (a is None):
            e_text, a_text = ("None" if g is None else "a tensor" for g in (e, a))
            raise Mismatch(stage, f"{where}: gradient of {name}: expected {e_text}, got {a_text}")
        if e is not None:
            compare(e, a, f"{where}: gradient of {name}", tolerances, by_value, stage, reference, (j,))


def _cotangent(tensor, seed):
    import torch
    rng = np.random.default_rng(1000 + seed)
    values = rng.standard_normal(tuple(tensor.shape))
    dtype = torch.float32 if tensor.dtype == torch.bfloat16 else tensor.dtype
    return np.asarray(values, dtype=torch.empty((), dtype=dtype).numpy().dtype)


def first_samples(op, dtype, count):
    """The first ``count`` samples of ``op.sample_inputs("cpu", dtype, requires_grad)``,
    PyTorch's generators seeded with :data:`SEED` before each, as ``sample_inputs``
    seeds them outside a test. ``sample_inputs_func`` is called directly: ``sample_inputs``
    looks for the running unittest through ``inspect.stack()``, which reads the source of
    every frame and takes seconds per entry under pytest."""
    import random
    import torch
    requires_grad = op.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
    generator = iter(op.sample_inputs_func(op, "cpu", dtype, requires_grad))
    samples = []
    for _ in range(count):
        torch.manual_seed(SEED)
        random.seed(SEED)
        np.random.seed(SEED)
        try:
            samples.append(next(generator))
        except StopIteration:
            break
    return samples


def run_entry(op, dtype, samples=SAMPLES):
    """The :class:`Result` of one OpInfo entry (``dtype``: its samples' dtype, None when
    PyTorch gives it none on the CPU)."""
    name, fam = entry_name(op), opinfo_groups.family(op)
    reason = opinfo_groups.left_out_reason(op) or opinfo_groups.dtype_left_out_reason(dtype)
    dtype_name = _dtype_name(dtype) if dtype is not None else "none"
    if reason:
        return Result(name, fam, "left out", cause=reason, dtype=dtype_name)
    start = time.perf_counter()
    run = EntryRun(op, dtype)
    failure, count = None, 0
    with _quiet():
        try:
            sample_list = first_samples(op, dtype, samples)
        except Exception as exc:
            sample_list = []
            failure = Mismatch("values", f"PyTorch's sample_inputs raised {describe(exc)}")
        try:
            for sample in sample_list:
                count += 1
                for stage in STAGES:
                    if failure is not None and STAGES.index(failure.stage) <= STAGES.index(stage):
                        break
                    try:
                        getattr(run, stage)(sample)
                    except Mismatch as mismatch:
                        failure = mismatch
                    except LeftOut:
                        raise
                    except Exception as exc:    # the harness's own bug: shown, and the run goes on
                        failure = Mismatch(stage, f"harness error: {describe(exc)}")
                if failure is not None and failure.stage == "values":
                    break
        except LeftOut as left_out:
            return Result(name, fam, "left out", cause=str(left_out), dtype=dtype_name)
    if failure is None and run.compared == 0:
        failure = Mismatch("values", "nothing compared: PyTorch raised on every sample and variant")
    seconds = round(time.perf_counter() - start, 3)
    if failure is None:
        return Result(name, fam, "pass", samples=count, seconds=seconds, dtype=dtype_name)
    return Result(name, fam, "fail", failure.stage, failure.cause, count, seconds, failure.details,
                  dtype_name)


# ---------------------------------------------------------------------------------------
# running a ModuleInfo entry

class ModuleRun:
    """One ModuleInfo entry: the module built on both sides from each sample's
    constructor arguments, minigrad's loaded with PyTorch's parameters and buffers."""

    def __init__(self, info, dtype):
        self.info, self.dtype = info, dtype
        self.tolerances = tolerances_for(info.decorators, dtype)
        self.compared = 0           # forward results compared at the values stage

    def build(self, module_input, stage):
        """PyTorch's module, minigrad's, the forward call on both sides, the converter and
        a float64 copy of PyTorch's module (for :class:`Reference`); None when PyTorch
        cannot build it."""
        import torch
        constructor = _clone((tuple(module_input.constructor_input.args),
                              dict(module_input.constructor_input.kwargs)))
        forward = _clone((tuple(module_input.forward_input.args), dict(module_input.forward_input.kwargs)))
        torch.manual_seed(SEED)
        try:
            torch_module = self.info.module_cls(*constructor[0], **constructor[1]).to(self.dtype)
            lazy = torch.nn.parameter.UninitializedParameter
            if any(isinstance(p, lazy) for p in torch_module.parameters()):
                with torch.no_grad():   # a lazy module takes its shapes from a first forward
                    torch_module(*_clone(forward[0]), **_clone(forward[1]))
            double = copy.deepcopy(torch_module).double()
        except Exception:
            return None
        state = {key: value.detach().clone() for key, value in torch_module.state_dict().items()}
        convert = ToMinigrad()
        try:
            cls = resolve(f"{opinfo_convert.TARGET.__name__}.{self.info.name}")
            mg_constructor, mg_forward, mg_state = convert(constructor), convert(forward), convert(state)
            mg_module = cls(*mg_constructor[0], **mg_constructor[1]).to(convert(self.dtype))
            mg_module.load_state_dict(mg_state)
        except Exception as exc:
            raise Mismatch(stage, describe(exc)) from None
        return types.SimpleNamespace(torch=torch_module, minigrad=mg_module, forward=forward,
                                     mg_forward=mg_forward, convert=convert, double=double)

    def values(self, module_input):
        built = self.build(module_input, "values")
        if built is None:
            return
        try:
            expected = built.torch(*built.forward[0], **built.forward[1])
        except Exception:
            return
        try:
            actual = built.minigrad(*built.mg_forward[0], **built.mg_forward[1])
            mg_state = built.minigrad.state_dict()
        except Exception as exc:
            raise Mismatch("values", describe(exc)) from None

        def reference():
            double_forward = _clone(built.forward, double=True)
            out = built.double(*double_forward[0], **double_forward[1])
            return out, list(built.double.state_dict().values())

        reference = Reference(reference)
        compare(expected, actual, "forward", self.tolerances, reference=reference, path=(0,))
        self.compared += 1
        for i, (key, value) in enumerate(built.torch.state_dict().items()):
            if key not in mg_state:
                raise Mismatch("values", f"state_dict after forward: no {key}")
            compare(value, mg_state[key], f"{key} after forward", self.tolerances, reference=reference,
                    path=(1, i))

    def gradients(self, module_input, stage="gradients"):
        built = self.build(module_input, stage)
        if built is None:
            return
        log = stage == "stream"
        inputs = _tensors_requiring_grad(built.forward)
        names = [f"input {i}" for i in range(len(inputs))]
        parameter_names = [name for name, p in built.torch.named_parameters() if p.requires_grad]
        inputs += [p for p in built.torch.parameters() if p.requires_grad]
        expected = torch_backward(lambda: built.torch(*built.forward[0], **built.forward[1]), inputs, log)
        if expected is None:
            return
        parameters = dict(built.minigrad.named_parameters())
        missing = [name for name in parameter_names if name not in parameters]
        if missing:
            raise Mismatch(stage, f"no parameter {missing[0]}")
        mg_inputs = [built.convert.tensor_for(t) for t in inputs[:len(names)]]
        mg_inputs += [parameters[name] for name in parameter_names]
        actual = minigrad_backward(lambda: built.minigrad(*built.mg_forward[0], **built.mg_forward[1]),
                                   expected, mg_inputs, stage, log, "forward")
        if log:
            compare_streams(expected.calls, actual.calls, "forward and backward")
            return

        def reference():
            double_forward = _clone(built.forward, double=True)
            double_inputs = _tensors_requiring_grad(double_forward)
            double_inputs += [p for p in built.double.parameters() if p.requires_grad]
            return torch_backward(lambda: built.double(*double_forward[0], **double_forward[1]),
                                  double_inputs, cotangents=expected.cotangents).grads

        compare_gradients(expected, actual, names + parameter_names, "backward", self.tolerances, True, stage,
                          Reference(reference))

    def stream(self, module_input):
        self.gradients(module_input, stage="stream")


def run_module(info, dtype, samples=SAMPLES):
    """The :class:`Result` of one ModuleInfo entry."""
    import torch
    name = info.name
    reason = opinfo_groups.module_left_out_reason(info) or opinfo_groups.dtype_left_out_reason(dtype)
    dtype_name = _dtype_name(dtype) if dtype is not None else "none"
    if reason:
        return Result(name, "modules", "left out", cause=reason, dtype=dtype_name)
    start = time.perf_counter()
    run = ModuleRun(info, dtype)
    failure, count = None, 0
    with _quiet():
        torch.manual_seed(SEED)
        try:
            module_inputs = info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=True,
                                                    training=True)[:samples]
        except Exception as exc:
            module_inputs = []
            failure = Mismatch("values", f"PyTorch's module_inputs_func raised {describe(exc)}")
        for module_input in module_inputs:
            count += 1
            for stage in STAGES:
                if failure is not None and STAGES.index(failure.stage) <= STAGES.index(stage):
                    break
                try:
                    getattr(run, stage)(module_input)
                except Mismatch as mismatch:
                    failure = mismatch
                except Exception as exc:        # the harness's own bug: shown, and the run goes on
                    failure = Mismatch(stage, f"harness error: {describe(exc)}")
            if failure is not None and failure.stage == "values":
                break
    if failure is None and run.compared == 0:
        failure = Mismatch("values", "nothing compared: PyTorch raised on every sample")
    seconds = round(time.perf_counter() - start, 3)
    if failure is None:
        return Result(name, "modules", "pass", samples=count, seconds=seconds, dtype=dtype_name)
    return Result(name, "modules", "fail", failure.stage, failure.cause, count, seconds, failure.details,
                  dtype_name)


# ---------------------------------------------------------------------------------------
# the whole sweep, the expectation file, the command line

def databases():
    """{"op_db": [(entry, dtype)], "module_db": [(entry, dtype)]}: every entry that
    supports float32 on the CPU.

    Importing PyTorch's test modules changes the process: it loads a hypothesis profile
    of its own (10 examples instead of 100), adds warning filters and sets an
    environment variable. All three are put back, so the tests that run after the sweep
    in the same pytest worker run as they would without it."""
    import os
    environ = dict(os.environ)
    try:
        import hypothesis
        profile = hypothesis.settings.get_current_profile_name()
    except ImportError:
        hypothesis = None
    with warnings.catch_warnings():
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.testing._internal.common_modules import module_db
    if hypothesis is not None:
        hypothesis.settings.load_profile(profile)
    os.environ.clear()
    os.environ.update(environ)
    return {"op_db": [(op, sample_dtype(op.supported_dtypes("cpu"))) for op in op_db],
            "module_db": [(info, sample_dtype(info.dtypes)) for info in module_db]}


def sample_dtype(dtypes):
    """float32 when the entry supports it on the CPU (the figures count those), else the
    first of :data:`OTHER_DTYPES` it supports, else any, else None."""
    import torch
    for name in ("float32", *OTHER_DTYPES):
        if getattr(torch, name) in dtypes:
            return getattr(torch, name)
    return min(dtypes, key=str) if dtypes else None


def _name_of(database, entry):
    return entry_name(entry) if database == "op_db" else entry.name


def sweep(database, entries, only=(), progress=None, into=None):
    """Run ``entries`` of ``database`` (all, or those matching a pattern of ``only``); the
    results go into ``into`` (a :class:`Sweep`, kept by the caller if the run is
    interrupted) as they come."""
    runner = run_entry if database == "op_db" else run_module
    result = into if into is not None else Sweep(database)
    start = time.perf_counter()
    with _generators_kept():
        for entry, dtype in entries:
            name = _name_of(database, entry)
            if only and not any(fnmatch.fnmatchcase(name, p) for p in only):
                continue
            try:
                with _time_limit(ENTRY_SECONDS):
                    result.results.append(runner(entry, dtype))
            except _TooLong:
                result.results.append(Result(name, "modules" if database == "module_db" else
                                             opinfo_groups.family(entry), "fail", "values",
                                             f"took more than {ENTRY_SECONDS} s (stopped)"))
            if progress:
                progress(result.results[-1])
    result.seconds = round(time.perf_counter() - start, 1)
    return result


class _TooLong(BaseException):
    """An entry ran longer than :data:`ENTRY_SECONDS` (a BaseException, so no ``except
    Exception`` of the stages takes it for an op's error)."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Stop the block after ``seconds`` (SIGALRM; where there is none, or off the main
    thread, no limit): a op that loops forever fails its entry instead of hanging the run."""
    import signal
    import threading
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _TooLong()

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _generators_kept():
    """The sweep seeds PyTorch's, minigrad's, Python's and numpy's global generators;
    their states are put back afterwards, for the tests that run next in the process."""
    import random
    import torch
    target = opinfo_convert.TARGET
    states = (torch.get_rng_state(), target.get_rng_state(), random.getstate(), np.random.get_state())
    try:
        yield
    finally:
        torch.set_rng_state(states[0])
        target.set_rng_state(states[1])
        random.setstate(states[2])
        np.random.set_state(states[3])


def summary_line(sweeps):
    """``OpInfo: V/N entries pass values, G/N gradients, S/N the aten stream; module_db: ...``"""
    parts = []
    for sweep_ in (s for s in sweeps if s.results):
        c = sweep_.counts()
        n = c["entries"]
        label = "OpInfo" if sweep_.database == "op_db" else "module_db"
        part = (f"{label}: {c['values']}/{n} entries pass values, {c['gradients']}/{n} gradients, "
                f"{c['stream']}/{n} the aten stream")
        if c["left_out"]:
            part += f" ({c['left_out']} left out)"
        parts.append(part)
    return "; ".join(parts)


def results_json(sweep_, complete=True):
    """A run as JSON: the database, whether every entry ran, the seconds, the counts and
    every entry's result (name, family, status, stage, cause, samples, seconds)."""
    return json.dumps({"database": sweep_.database, "complete": complete, "seconds": sweep_.seconds,
                       "counts": sweep_.counts(),
                       "entries": [{k: v for k, v in asdict(r).items() if k != "details"}
                                   for r in sweep_.results]}, indent=1) + "\n"


def write_results(sweeps, folder=RESULTS):
    """build/opinfo/<database>.json for each complete run, and summary.txt."""
    for sweep_ in sweeps:
        write_atomically(Path(folder) / f"{sweep_.database}.json", results_json(sweep_))
    write_atomically(Path(folder) / "summary.txt",
                     summary_line(sweeps) + f"; {sum(s.seconds for s in sweeps):.0f} s\n")


# expected.json: {"op_db": {"failing": {name: [stage, cause]}, "left out": {name: reason}}, "module_db": ...}

def load_expected(path=EXPECTED):
    if not Path(path).exists():
        return {db: {"failing": {}, "left out": {}} for db in DATABASES}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {db: {"failing": dict(data.get(db, {}).get("failing", {})),
                 "left out": dict(data.get(db, {}).get("left out", {}))} for db in DATABASES}


def render_expected(expected):
    """The expectation file's text: one entry per line, sorted, so merges stay simple."""
    lines = ["{"]
    for d, db in enumerate(DATABASES):
        lines.append(f"  {json.dumps(db)}: {{")
        for s, section in enumerate(("failing", "left out")):
            items = sorted(expected[db][section].items())
            lines.append(f"    {json.dumps(section)}: {{")
            lines += [f"      {json.dumps(k)}: {json.dumps(v)}" + ("," if i < len(items) - 1 else "")
                      for i, (k, v) in enumerate(items)]
            lines.append("    }" + ("," if s == 0 else ""))
        lines.append("  }" + ("," if d < len(DATABASES) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def updated_expected(expected, sweep_, complete):
    """``expected`` with ``sweep_``'s entries recorded; ``complete``: the sweep ran every
    entry, so names it did not see are dropped."""
    db = sweep_.database
    failing = {} if complete else dict(expected[db]["failing"])
    left_out = {} if complete else dict(expected[db]["left out"])
    for r in sweep_.results:
        failing.pop(r.name, None)
        left_out.pop(r.name, None)
        if r.status == "fail":
            failing[r.name] = [r.stage, r.cause]
        elif r.status == "left out":
            left_out[r.name] = r.cause
    return {**expected, db: {"failing": failing, "left out": left_out}}


def differences(expected, sweep_, complete):
    """What the run changed against the expectation file: a list of lines (empty: none)."""
    db = sweep_.database
    failing, left_out = expected[db]["failing"], expected[db]["left out"]
    problems = []
    seen = set()
    for r in sweep_.results:
        seen.add(r.name)
        was = failing.get(r.name)
        if r.status == "left out" or r.name in left_out:
            if left_out.get(r.name) != (r.cause if r.status == "left out" else None):
                problems.append(f"{db} {r.name}: left out changed: expected {left_out.get(r.name)!r}, "
                                f"now {r.status} {r.cause!r}")
            continue
        if r.status == "pass" and was:
            problems.append(f"{db} {r.name}: passes now (listed as failing at {was[0]}): "
                            "lift it with --update")
        elif r.status == "fail" and not was:
            problems.append(f"{db} {r.name}: REGRESSION: fails at {r.stage}: {r.cause}")
        elif r.status == "fail" and was[0] != r.stage:
            if STAGES.index(r.stage) < STAGES.index(was[0]):
                problems.append(f"{db} {r.name}: REGRESSION: fails at {r.stage} (listed at {was[0]}): "
                                f"{r.cause}")
            else:
                problems.append(f"{db} {r.name}: passes {was[0]} now, fails at {r.stage}: {r.cause}: "
                                "record it with --update")
    if complete:
        for name in sorted((set(failing) | set(left_out)) - seen):
            problems.append(f"{db} {name}: listed in {EXPECTED.name} but not an entry any more: --update")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", action="append", default=[], metavar="PATTERN",
                        help="run only the entries whose name matches (fnmatch; repeatable); each is shown")
    parser.add_argument("--db", choices=("op_db", "module_db", "all"), default="all",
                        help="which database to run (default: both)")
    parser.add_argument("--update", action="store_true",
                        help=f"rewrite {EXPECTED.relative_to(REPO_ROOT)} from this run "
                             "(with --only: just those entries)")
    parser.add_argument("--verbose", action="store_true", help="show every entry's result")
    parser.add_argument("--self-check", action="store_true",
                        help="run PyTorch against itself (every entry should pass: a failure is the "
                             "harness's); compares with nothing, writes nothing")
    args = parser.parse_args(argv)
    if args.self_check and args.update:
        parser.error("--self-check records nothing: drop --update")
    start = time.perf_counter()
    try:
        with _quiet():
            dbs = databases()
    except KeyboardInterrupt:
        print("interrupted while importing PyTorch's databases: nothing ran, nothing written",
              file=sys.stderr)
        return 130
    chosen = DATABASES if args.db == "all" else (args.db,)
    names = [_name_of(db, entry) for db in chosen for entry, _ in dbs[db]]
    unmatched = [p for p in args.only if not any(fnmatch.fnmatchcase(name, p) for name in names)]
    if unmatched:
        parser.error(f"no entry of {' or '.join(chosen)} matches {', '.join(unmatched)} "
                     "(names look like acos, div:trunc_rounding, nn.functional.conv2d, nn.Linear)")
    show = args.verbose or bool(args.only)
    if args.self_check:
        import torch
        opinfo_convert.set_target(torch)

    def progress(r):
        if show:
            outcome = {"pass": "passes", "left out": f"left out: {r.cause}",
                       "fail": f"fails {r.stage}: {r.cause}"}[r.status]
            print(f"{r.name}: {outcome} [{r.seconds:.2f} s]", flush=True)
            if args.only:
                for line in r.details:
                    print(f"    {line}")

    sweeps = []
    try:
        for db in chosen:
            sweeps.append(Sweep(db))
            sweep(db, dbs[db], args.only, progress, into=sweeps[-1])
    except KeyboardInterrupt:
        partial = RESULTS / "interrupted.json"
        write_atomically(partial, "[" + ",\n".join(results_json(s, complete=False) for s in sweeps) + "]\n")
        print(f"interrupted: the {sum(len(s.results) for s in sweeps)} entries that finished are in "
              f"{partial.relative_to(REPO_ROOT)}; {EXPECTED.name} is unchanged", file=sys.stderr)
        return 130
    if args.self_check:
        for r in (r for s in sweeps for r in s.results if r.status == "fail"):
            print(f"{r.name}: fails {r.stage}: {r.cause}")
        print("self-check, PyTorch against itself: " + summary_line(sweeps))
        return 1 if any(r.status == "fail" for s in sweeps for r in s.results) else 0
    expected = load_expected()
    complete = not args.only
    if args.update:
        for sweep_ in sweeps:
            expected = updated_expected(expected, sweep_, complete)
        write_atomically(EXPECTED, render_expected(expected))
        print(f"wrote {EXPECTED.relative_to(REPO_ROOT)}")
        problems = []
    else:
        problems = [line for sweep_ in sweeps for line in differences(expected, sweep_, complete)]
        for line in problems:
            print(line)
    if complete:
        write_results(sweeps)
    print(summary_line(sweeps) + f"; {time.perf_counter() - start:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
