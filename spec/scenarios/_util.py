"""Small helpers shared by the scenarios. They never import torch or minigrad:
everything framework-specific goes through the module passed to ``run``."""


def r4(value):
    """Round every float in a (nested) list / number to 4 decimals."""
    if isinstance(value, float):
        v = round(value, 4)
        return 0.0 if v == 0 else v          # no "-0.0" in traces
    if isinstance(value, (list, tuple)):
        return [r4(v) for v in value]
    return value


def L(t):
    """A tensor (or None, or a tuple/list of them) as rounded nested lists."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return [L(x) for x in t]
    return r4(t.tolist())


def err(e):
    """An exception as 'TypeName: message'."""
    return f"{type(e).__name__}: {e}"


def try_call(label, fn):
    """Call fn(); return one trace line, with the exception if one was raised."""
    try:
        fn()
        return f"{label} -> no error"
    except Exception as e:  # the error text IS the scenario's result
        return f"{label} -> {err(e)}"


def warning_lines(caught):
    """warnings.catch_warnings(record=True) entries as 'WARNING Category: message'."""
    return [f"WARNING {w.category.__name__}: {w.message}" for w in caught]


def index_of(trace, prefix):
    """Index of the first trace line starting with prefix (AssertionError if none)."""
    for i, line in enumerate(trace):
        if line.startswith(prefix):
            return i
    raise AssertionError(f"no trace line starts with {prefix!r}:\n" + "\n".join(trace))


def line(trace, prefix):
    return trace[index_of(trace, prefix)]
