"""``FlopCounterMode``: count the floating-point operations of the matrix products and
convolutions run inside it, forward and backward, in total and per module.

PyTorch counterpart: ``torch/utils/flop_counter.py``, built the same way: a
``TorchDispatchMode`` sees each op and a formula per op counts its flops from the shapes
(``2 * m * k * n`` for ``mm``; only multiplications and their additions, no bias), and a
``ModuleTracker`` says which modules the op runs in. ``get_flop_counts()`` reads
``{"Global": {aten.mm: n, ...}, "Sequential.0": {...}}``, keyed by overload packet.

Where minigrad differs: the backward of a convolution is ``im2col``/``col2im`` and two
``mm`` here, not PyTorch's ``convolution_backward``; it is counted under ``aten.mm``,
with the same number of flops. ``display=True`` prints the table with plain padding
(PyTorch formats it with the ``tabulate`` package).
"""
from collections import defaultdict as _defaultdict
from math import prod as _prod

from ._python_dispatch import TorchDispatchMode as _TorchDispatchMode
from .module_tracker import ModuleTracker as _ModuleTracker

__all__ = ["FlopCounterMode", "register_flop_formula", "conv_flop_count"]


def _shape(value):
    return tuple(value.shape) if hasattr(value, "shape") else value


def _mm_flop(a_shape, b_shape, out_shape=None, **kwargs):
    m, k = a_shape
    return m * b_shape[1] * 2 * k


def _addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs):
    return _mm_flop(a_shape, b_shape)


def _bmm_flop(a_shape, b_shape, out_shape=None, **kwargs):
    # minigrad's bmm broadcasts its batch dimensions (a [k, n] matrix against a batch)
    return _prod(out_shape[:-2]) * a_shape[-2] * b_shape[-1] * 2 * a_shape[-1]


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False):
    """PyTorch's formula: for each point of the output (of the input, when transposed),
    the filter meets every input channel of every output channel, for each sample."""
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return _prod(conv_shape) * _prod(filter_size) * x_shape[0] * c_out * c_in * 2


def _conv_flop(x_shape, w_shape, bias_shape, out_shape, transposed=False, **kwargs):
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


# {aten packet name: formula(*input shapes, out_shape, **op arguments)}
_flop_registry = {"mm": _mm_flop, "addmm": _addmm_flop, "bmm": _bmm_flop, "convolution": _conv_flop}


def register_flop_formula(targets):
    """``@register_flop_formula("mm")``: count an op's flops with
    ``formula(*input_shapes, out_shape, **kwargs)``. PyTorch takes ``torch.ops.aten.mm``
    packets; minigrad takes a packet or its name."""
    targets = targets if isinstance(targets, (list, tuple)) else [targets]
    names = [getattr(t, "__name__", t) for t in targets]

    def register(formula):
        for name in names:
            if name in _flop_registry:
                raise RuntimeError(f"duplicate registrations for aten.{name}")
            _flop_registry[name] = formula
        return formula
    return register


_SUFFIXES = ["", "K", "M", "B", "T"]


def _suffix_for(number):
    return _SUFFIXES[max(0, min(len(_SUFFIXES) - 1, (len(str(number)) - 2) // 3))]


def _with_suffix(number, suffix):
    index = _SUFFIXES.index(suffix)
    return f"{number / 1000 ** index:.3f}" + suffix


def _percent(num, denom):
    return "0%" if denom == 0 else f"{num / denom:.2%}"


class FlopCounterMode:
    """``with FlopCounterMode(display=False) as counter: model(x).sum().backward()``, then
    ``counter.get_total_flops()`` and ``counter.get_flop_counts()``. Not re-entrant."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        self.flop_counts = _defaultdict(lambda: _defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        self.flop_registry = {**_flop_registry, **{getattr(k, "__name__", k): v
                                                   for k, v in (custom_mapping or {}).items()}}
        self.mod_tracker = _ModuleTracker()

    def get_total_flops(self):
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self):
        """{module name: {aten packet: flops}}, with ``"Global"`` for everything."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        """The table ``display=True`` prints: each module down to ``depth``, its flops and
        its share of the total, then its ops."""
        depth = self.depth if depth is None else depth
        depth = 999999 if depth is None else depth
        global_flops = self.get_total_flops()
        suffix = _suffix_for(global_flops)
        subsumed = False

        def rows_of(mod_name, indent):
            nonlocal subsumed
            total = sum(self.flop_counts[mod_name].values())
            subsumed |= total >= global_flops
            pad = " " * indent
            rows = [[pad + mod_name, _with_suffix(total, suffix), _percent(total, global_flops)]]
            rows += [[pad + " - " + str(k), _with_suffix(v, suffix), _percent(v, global_flops)]
                     for k, v in self.flop_counts[mod_name].items()]
            return rows

        rows = []
        for mod in sorted(self.flop_counts):
            if mod != "Global" and mod.count(".") + 1 <= depth:
                rows += rows_of(mod, mod.count("."))
        if "Global" in self.flop_counts and not subsumed:
            rows = rows_of("Global", 0) + [[" " + r[0]] + r[1:] for r in rows]
        rows = rows or [["Global", "0", "0%"]]
        header = ["Module", "FLOP", "% Total"]
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(3)]
        lines = [f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]:>{widths[2]}}",
                 "  ".join("-" * w for w in widths)]
        lines += [f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}" for r in rows]
        return "\n".join(lines)

    def __enter__(self):
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self.mode = _FlopCounterMode(self)
        self.mode.__enter__()
        return self

    def __exit__(self, *args):
        self.mode.__exit__(*args)
        self.mode = None
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return False

    def _count_flops(self, func_packet, out, args, kwargs):
        formula = self.flop_registry.get(func_packet.__name__)
        if formula is not None:
            flops = formula(*(_shape(a) for a in args), out_shape=_shape(out), **kwargs)
            for parent in set(self.mod_tracker.parents):
                self.flop_counts[parent][func_packet] += flops


class _FlopCounterMode(_TorchDispatchMode):
    def __init__(self, counter):
        super().__init__()
        self.counter = counter

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        self.counter._count_flops(func.overloadpacket, out, args, kwargs)
        return out
