"""Printing tensors the way PyTorch prints them.

PyTorch counterpart: ``torch/_tensor_str.py`` (``torch.set_printoptions``, the
``repr`` of a tensor). One ``_Formatter`` looks at every printed value once and picks
a style for all of them:

- integer mode, when every finite non-zero float is a whole number: ``tensor([1., 2.])``;
- scientific mode, when the largest and smallest non-zero magnitudes are 1000 times
  apart, or one is above 1e8 or below 1e-4 (``sci_mode`` overrides the choice);
- otherwise fixed point with ``precision`` decimals.

Every value is right-aligned to the widest one. Rows wrap at ``linewidth`` columns;
a tensor of more than ``threshold`` elements prints only ``edgeitems`` rows/columns at
each end of every dimension, with ``...`` between.
"""
import dataclasses
import math

import numpy as np


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None     # None: chosen per tensor; True/False: forced


_OPTS = _PrintOptions()
_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """``torch.set_printoptions``: a ``profile`` ("default", "short", "full") first,
    then every option given; ``sci_mode`` is always reset (None: automatic)."""
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(_OPTS, name, value)
    given = dict(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth)
    for name, value in given.items():
        if value is not None:
            setattr(_OPTS, name, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    """``torch._tensor_str.get_printoptions``: the options as keyword arguments of
    ``set_printoptions``."""
    return dataclasses.asdict(_OPTS)


class _Formatter:
    """Chooses the style and width of the values of one tensor, then formats each."""

    def __init__(self, array):
        self.floating = array.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        if not self.floating:
            self.width = max([1] + [len(f"{v}") for v in array.reshape(-1).tolist()])
            return
        values = array[np.isfinite(array) & (array != 0)]
        if values.size == 0:
            return
        self.int_mode = bool(np.all(values == np.ceil(values)))
        magnitudes = np.abs(values.astype(np.float64))
        big, small = magnitudes.max(), magnitudes.min()
        self.sci_mode = (big / small > 1000.0 or big > 1.0e8 or small < 1.0e-4
                         if _OPTS.sci_mode is None else _OPTS.sci_mode)
        p = _OPTS.precision
        if self.sci_mode:
            texts = [f"{v:.{p}e}" for v in values.tolist()]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in values.tolist()]
        else:
            texts = [f"{v:.{p}f}" for v in values.tolist()]
        self.width = max(len(t) for t in texts)

    def format(self, value):
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.width}.{_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{_OPTS.precision}f}"
        return text.rjust(self.width)


def _edges(n, summarize):
    """The indices printed along a dimension of length ``n`` (None marks the ``...``)."""
    e = _OPTS.edgeitems
    if summarize and n > 2 * e:
        return list(range(e)) + [None] + list(range(n - e, n))
    return list(range(n))


def _summarized(array):
    """The values a summarised print shows (``get_summarized_data``); the formatter
    looks at these only."""
    if array.ndim == 0:
        return array
    e = _OPTS.edgeitems
    if array.ndim == 1:
        # array[-0:] is the whole array, as in PyTorch: edgeitems=0 formats every value
        return np.concatenate((array[:e], array[-e:])) if len(array) > 2 * e else array
    if not e:
        return np.empty([0] * array.ndim, array.dtype)
    return np.stack([_summarized(array[i]) for i in _edges(len(array), True) if i is not None])


def _body(array, indent, summarize, fmt):
    if array.ndim == 0:
        return fmt.format(array.item())
    if array.ndim == 1:
        if summarize and not _OPTS.edgeitems:
            items = ["..."]
        else:
            items = [" ..." if i is None else fmt.format(array[i].item())
                     for i in _edges(len(array), summarize)]
        per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.width + 2)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = ["..." if i is None else _body(array[i], indent + 1, summarize, fmt)
            for i in _edges(len(array), summarize)]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text, suffixes, indent):
    """Append ``, dtype=...`` and friends, starting a new line where one would pass
    ``linewidth`` (PyTorch's own line-length arithmetic, quirks included). A suffix is
    measured as PyTorch's ``dtype=torch.float64``, so lines break where PyTorch's do."""
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        length = len(suffix.replace("minigrad.", "torch."))
        if last_line + length + 2 > _OPTS.linewidth:
            text += ",\n" + " " * indent + suffix
            last_line = indent + length
        else:
            text += ", " + suffix
            last_line += length + 2
    return text + ")"


def tensor_repr(t):
    """``repr(tensor)``: ``tensor(<values>, <suffixes>)``."""
    array = t._array
    if array.dtype.char == "E":     # bfloat16: its values are float32 values (numpy's formatting needs one)
        array = array.astype(np.float32)
    prefix = "tensor("
    indent = len(prefix)
    dtype_name = t.dtype.name
    suffixes = []
    if t.is_meta:       # no values: the device and the size, and any dtype but the default
        body = "..."
        suffixes += ["device='meta'", f"size={tuple(array.shape)}"]
        if dtype_name != "float32":
            suffixes.append(f"dtype={t.dtype!r}")
    elif array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype_name != "float32":     # nothing to tell an empty int64 tensor apart by
            suffixes.append(f"dtype={t.dtype!r}")
    else:
        summarize = array.size > _OPTS.threshold
        fmt = _Formatter(_summarized(array) if summarize else array)
        body = _body(array, indent, summarize, fmt)
        if not _OPTS.edgeitems:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype_name not in ("float32", "int64", "bool"):
            suffixes.append(f"dtype={t.dtype!r}")
    try:
        grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    except RuntimeError:        # a view made under no_grad, changed in place since: PyTorch's text
        grad_fn = "Invalid"
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
