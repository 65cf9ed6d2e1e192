"""Printing tensors the way PyTorch prints them (``torch/_tensor_str.py``, simplified):
integer-valued floats as ``1.``, otherwise four decimals, scientific notation when the
magnitudes are far apart, every element padded to one width."""
import numpy as np

_DEFAULT_DTYPES = ("float32", "int64", "bool")


def _format_floats(values):
    finite = values[np.isfinite(values)]
    if finite.size and np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e8:
        return [("%.0f." % v) if np.isfinite(v) else str(v).replace("inf", "inf") for v in values]
    if finite.size:
        absmax, absmin = np.abs(finite).max(), np.abs(finite[finite != 0]).min() if np.any(finite != 0) else 0
        if absmax >= 1e8 or (absmin and (absmin < 1e-4 or absmax / absmin > 1000)):
            return ["%.4e" % v for v in values]
    return ["%.4f" % v for v in values]


def _format_elements(data):
    flat = data.reshape(-1)
    if data.dtype.kind == "f":
        texts = _format_floats(flat.astype(np.float64))
        texts = [t.replace("nan", "nan") for t in texts]
    elif data.dtype.kind == "b":
        texts = [str(bool(v)) for v in flat]
    else:
        texts = [str(int(v)) for v in flat]
    width = max((len(t) for t in texts), default=0)
    return np.array([t.rjust(width) for t in texts], dtype=object).reshape(data.shape)


def _nest(texts, indent):
    if texts.ndim == 0:
        return texts.item()
    if texts.ndim == 1:
        return "[" + ", ".join(texts.tolist()) + "]"
    sep = "," + "\n" * (texts.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(_nest(sub, indent + 1) for sub in texts) + "]"


def tensor_repr(t):
    data = t._array
    body = _nest(_format_elements(data), len("tensor(")) if data.size else "[]"
    if data.size == 0 and data.ndim > 1:
        body = "[]"
    extras = []
    if t.dtype.name not in _DEFAULT_DTYPES:
        extras.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"
