"""``linspace`` and ``arange`` computed the way PyTorch's CPU kernels compute them, so
the values agree bit for bit (``RangeFactoriesKernel.cpp``).

Two facts matter. (1) The formulas: ``linspace`` steps from ``start`` for the first
half and back from ``end`` for the second (``end - step * (steps - i - 1)``), in the
output dtype; ``arange`` computes ``start + step * i`` in float64 for float outputs.
(2) The compiler fuses each ``a + b * c`` into one fused multiply-add (one rounding,
not two), and ``arange`` fills whole SIMD vectors from a rounded base value. numpy has
no fused multiply-add, so :func:`_fma` emulates it exactly with error-free
transformations. Sizes above PyTorch's parallel grain (32768 elements) are split over
threads in PyTorch; minigrad assumes one thread there, which can differ in the last
bit of a few elements. The vector width is that of AVX2 and ARM builds (32 bytes).
"""
import numpy as np

_VECTOR_BYTES = 32


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """``a * b`` as an exact sum ``p + e`` (Dekker's product, float64)."""
    p = a * b

    def split(x):
        c = 134217729.0 * x             # 2**27 + 1
        hi = c - (c - x)
        return hi, x - hi
    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd_sum(a, b):
    """``a + b`` rounded to odd: when inexact, the neighbour with an odd last bit."""
    s, e = _two_sum(a, b)
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0)
    return np.where(fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _fma(c, a, b, out_dtype=np.float64):
    """``c + a * b`` rounded once to ``out_dtype`` (float64 or float32), as a fused
    multiply-add does (Boldo and Melquiond's emulation by rounding to odd)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    with np.errstate(all="ignore"):
        ph, pl = _two_prod(a, b)
        sh, sl = _two_sum(c, ph)
        if out_dtype == np.float64:
            return sh + _round_to_odd_sum(pl, sl)
        # float32 operands: the product is exact in float64; round to odd in float64,
        # then once to float32 (correct since float64 has more than 24 + 1 bits).
        return _round_to_odd_sum(sh, pl + sl).astype(out_dtype)


def linspace_values(start, end, steps, np_dtype):
    """PyTorch's linspace kernel for ``steps >= 1`` elements of ``np_dtype``."""
    np_dtype = np.dtype(np_dtype)
    index = np.arange(steps, dtype=np.float64)
    if steps == 1:
        return np.full(1, start).astype(np_dtype)
    if np_dtype.kind in "iub":
        # integer outputs: start/end in the dtype, step and arithmetic in float64
        s, e = float(np_dtype.type(start)), float(np_dtype.type(end))
        step = (e - s) / (steps - 1)
        compute = np.float64
    elif np_dtype == np.float64:
        s, e = float(start), float(end)
        step = (e - s) / (steps - 1)
        compute = np.float64
    elif np_dtype == np.float16:
        # every float16 operation rounds to float16 (no fusing), as numpy's float16 does
        s, e = np.float16(start), np.float16(end)
        step = (e - s) / np.float16(steps - 1)
        with np.errstate(all="ignore"):
            first = s + step * index.astype(np.float16)
            second = e - step * ((steps - 1) - index).astype(np.float16)
        return np.where(index < steps // 2, first, second)
    else:
        s, e = np.float32(start), np.float32(end)
        step = float((e - s) / np.float32(steps - 1))
        s, e = float(s), float(e)
        compute = np.float32
    half = steps // 2
    first = _fma(s, step, index, compute)
    second = _fma(e, -step, (steps - 1) - index, compute)
    values = np.where(index < half, first, second)
    if np_dtype.kind in "iu":
        return np.trunc(values).astype(np_dtype)
    return values.astype(np_dtype)


def arange_length(start, end, step, integral):
    """PyTorch's size rule: ``ceil((end - start) / step)`` in float64, or for integer
    outputs ``(end - start + step - sign(step)) / step`` in C's integer division."""
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if integral:
        numerator = end - start + step - ((step > 0) - (step < 0))
        return abs(numerator) // abs(step)      # both have step's sign here
    return int(np.ceil((float(end) - float(start)) / float(step)))


def arange_values(start, end, step, np_dtype):
    """PyTorch's arange kernel: float outputs computed in float64 (``start + step * i``),
    a SIMD vector at a time from its first element rounded to the output dtype."""
    np_dtype = np.dtype(np_dtype)
    integral = np_dtype.kind in "iu"
    if integral:        # the bounds are converted to the integer dtype first
        if step != 0 and int(step) == 0:
            raise ValueError("step must be nonzero")        # (PyTorch's type for this case)
        start, end, step = int(start), int(end), int(step)
    size = arange_length(start, end, step, integral)
    if integral:
        return (start + step * np.arange(size, dtype=np.int64)).astype(np_dtype)
    # float64 arithmetic for float32 and float64 outputs, float32 for float16
    compute = np.float32 if np_dtype == np.float16 else np.float64
    start, step = float(compute(start)), float(compute(step))
    out = np.empty(size, dtype=np_dtype)
    width = _VECTOR_BYTES // np_dtype.itemsize
    paired = (size // (2 * width)) * 2 * width      # the vectorised part, two vectors a loop
    if paired:
        first = np.arange(0, paired, width, dtype=np.float64)
        base = _fma(start, step, first, compute).astype(np_dtype).astype(np.float64)
        lanes = np.arange(width, dtype=np.float64)
        out[:paired] = _fma(base[:, None], step, lanes[None, :], compute).astype(np_dtype).reshape(-1)
    out[paired:] = _fma(start, step, np.arange(paired, size, dtype=np.float64), compute).astype(np_dtype)
    return out
