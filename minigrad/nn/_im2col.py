"""Vectorised im2col / col2im: the numpy kernels behind conv2d and max_pool2d.

``unfold`` (im2col) copies every sliding ``kh x kw`` patch of a batch of
images into a column; ``fold`` (col2im) is its adjoint and scatters columns
back, *summing* where patches overlap. They mirror
``torch.nn.functional.unfold`` and ``torch.nn.functional.fold`` exactly
(same layouts and semantics, including ``dilation``; only the positional
order of the geometry arguments differs, see :func:`unfold`).

How conv2d and max_pool2d use them (``L = oh * ow`` patch positions)::

    cols = unfold_batch_last(x, (kh, kw), stride, padding)   # [C*kh*kw, L*N]
    y = w.reshape(C_out, -1) @ cols                          # one product: [C_out, L*N]
    # backward:  dx = fold_batch_last(w.reshape(C_out, -1).T @ dy_, (H, W), N, ...)
    #            dw = dy_ @ cols.T          (dy_: dy laid out [C_out, L*N])

    per_offset = windows(x, (kh, kw), stride, padding, pad_value=-np.inf)  # [kh*kw, N, C, oh, ow]
    y = running maximum over per_offset                      # max_pool2d

``unfold`` and ``fold`` (the ``[N, C*kh*kw, L]`` layout of ``F.unfold``/``F.fold``) are
the same patches with the batch first.

Because ``fold`` is the adjoint of ``unfold`` (``<unfold(x), y> ==
<x, fold(y)>``), the backward of one is the other: ``unfold``'s backward is
``fold`` of the incoming gradient and ``fold``'s backward is ``unfold``.

Pure numpy: no Python loop runs over pixels or over the batch. ``unfold`` is
one strided view plus one copy; ``fold`` loops over the ``kh * kw`` kernel
offsets only.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .modules.utils import _pair

__all__ = ["unfold", "fold", "windows", "unfold_batch_last", "fold_batch_last", "batch_last", "batch_first",
           "unfold_output_size"]


def _int_pair(v, name):
    """``3`` -> ``(3, 3)``; ``(3, 2)`` -> ``(3, 2)``; validates a pair of ints."""
    pair = _pair(v)
    if len(pair) != 2:
        raise ValueError(f"{name} must be an int or a pair, got {v!r}")
    a, b = pair
    try:
        a, b = int(a), int(b)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an int or a pair of ints, got {v!r}") from None
    return a, b


def _params(kernel_size, stride, padding, dilation):
    k = _int_pair(kernel_size, "kernel_size")
    d = _int_pair(dilation, "dilation")
    p = _int_pair(padding, "padding")
    s = _int_pair(stride, "stride")
    if min(k) < 1 or min(d) < 1 or min(s) < 1 or min(p) < 0:
        raise ValueError(
            "kernel_size, dilation and stride must be positive and padding "
            f"non-negative, got kernel_size={k}, dilation={d}, padding={p}, stride={s}"
        )
    return k, d, p, s


def _batched(a, ndim, expects):
    """``(a as an array with ndim dimensions, whether it came without the batch one)``:
    like torch's unfold and fold, both also take one unbatched input."""
    a = np.asarray(a)
    unbatched = a.ndim == ndim - 1
    if unbatched:
        a = a[None]
    if a.ndim != ndim:
        raise ValueError(f"{expects}, got shape {a.shape}")
    return a, unbatched


def unfold_output_size(input_size, kernel_size, stride=1, padding=0, dilation=1):
    """Number of patch positions ``(oh, ow)`` along height and width.

    ``o = (size + 2*padding - dilation*(kernel - 1) - 1) // stride + 1``, the
    formula of ``torch.nn.Unfold`` / ``torch.nn.Conv2d``; ``L = oh * ow``.
    """
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _params(kernel_size, stride, padding, dilation)
    h, w = _int_pair(input_size, "input_size")
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        raise ValueError(
            f"kernel {kh}x{kw} (dilation {dh},{dw}) does not fit in input "
            f"{h}x{w} with padding {ph},{pw}: output would be {oh}x{ow}"
        )
    return oh, ow


def unfold(x, kernel_size, stride=1, padding=0, *, dilation=1, pad_value=0.0):
    """im2col: extract sliding local blocks, like ``torch.nn.functional.unfold``.

    Args:
        x: array ``[N, C, H, W]`` (or unbatched ``[C, H, W]``).
        kernel_size, stride, padding, dilation: int or ``(h, w)`` pair, with
            the meaning and defaults of ``torch.nn.functional.unfold``. Note
            the positional order is ``(kernel_size, stride, padding)`` and
            ``dilation`` is keyword-only, whereas torch's positional order is
            ``(kernel_size, dilation, padding, stride)``: pass keywords when
            porting torch code.
        pad_value: value of the implicit border (keyword only; torch has no
            such argument and always pads with 0). Use ``-np.inf`` for
            max-pooling, whose padding must never win the max.

    Returns:
        A new array ``[N, C*kh*kw, L]`` (``[C*kh*kw, L]`` if unbatched) of
        ``x``'s dtype, ``L = oh * ow`` (see :func:`unfold_output_size`). Row
        ``c*kh*kw + i*kw + j`` holds kernel offset ``(i, j)`` of channel
        ``c``; column ``r*ow + q`` is the patch whose top-left corner is at
        ``(r*stride_h - pad_h, q*stride_w - pad_w)``: torch's layout exactly.

    Its adjoint (and backward) is :func:`fold`.
    """
    x, unbatched = _batched(x, 4, "unfold expects [N, C, H, W] or [C, H, W]")
    patches = _patches(x, kernel_size, stride, padding, dilation, pad_value)
    n, c, kh, kw, oh, ow = patches.shape
    cols = np.empty(patches.shape, dtype=x.dtype)
    np.copyto(cols, patches)  # the one copy; the result never aliases x
    cols = cols.reshape(n, c * kh * kw, oh * ow)
    return cols[0] if unbatched else cols


def windows(x, kernel_size, stride=1, padding=0, *, dilation=1, pad_value=0.0):
    """The same patches as :func:`unfold`, laid out kernel offset first: an array
    ``[kh*kw, N, C, oh, ow]`` whose entry ``k`` holds offset ``(k // kw, k % kw)`` of
    every patch. Each entry is contiguous, so a loop over the offsets (max-pooling's
    running maximum) works on whole contiguous blocks."""
    x, _ = _batched(x, 4, "windows expects [N, C, H, W]")
    patches = _patches(x, kernel_size, stride, padding, dilation, pad_value)
    n, c, kh, kw, oh, ow = patches.shape
    out = np.empty((kh, kw, n, c, oh, ow), dtype=x.dtype)
    np.copyto(out, patches.transpose(2, 3, 0, 1, 4, 5))
    return out.reshape(kh * kw, n, c, oh, ow)


def unfold_batch_last(x, kernel_size, stride=1, padding=0, *, dilation=1):
    """The patches of :func:`unfold` laid out ``[C*kh*kw, oh*ow*N]``: the batch is the
    fastest-moving index of a column. The image is first laid out ``[C, H, W, N]``, so
    each copied run holds ``ow * N`` values (512 on the CNN's 8-wide images) instead of
    ``ow``; and a convolution over the whole batch becomes one matrix product.
    ``x``: ``[N, C, H, W]``."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _params(kernel_size, stride, padding, dilation)
    n, c, h, w = x.shape
    oh, ow = unfold_output_size((h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    image = np.zeros((c, h + 2 * ph, w + 2 * pw, n), dtype=x.dtype)
    image[:, ph : ph + h, pw : pw + w, :] = batch_last(x)
    sc, sy, sx, sn = image.strides
    # Read-only view [C, kh, kw, oh, ow, N]: (c, i, j, r, q, b) is image[c, r*sh + i*dh, q*sw + j*dw, b].
    patches = as_strided(image, shape=(c, kh, kw, oh, ow, n),
                         strides=(sc, sy * dh, sx * dw, sy * sh, sx * sw, sn), writeable=False)
    cols = np.empty(patches.shape, dtype=x.dtype)
    np.copyto(cols, patches)
    return cols.reshape(c * kh * kw, oh * ow * n)


def fold_batch_last(cols, output_size, batch, kernel_size, stride=1, padding=0, *, dilation=1):
    """The adjoint of :func:`unfold_batch_last` (as :func:`fold` is of :func:`unfold`):
    columns ``[C*kh*kw, oh*ow*N]`` summed back into images, returned ``[N, C, H, W]``."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _params(kernel_size, stride, padding, dilation)
    h, w = _int_pair(output_size, "output_size")
    oh, ow = unfold_output_size((h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    c = cols.shape[0] // (kh * kw)
    blocks = cols.reshape(c, kh, kw, oh, ow, batch)
    image = np.zeros((c, h + 2 * ph, w + 2 * pw, batch), dtype=cols.dtype)
    for i in range(kh):          # one strided slab add per kernel offset, rows of ow * N values
        y0 = i * dh
        for j in range(kw):
            x0 = j * dw
            image[:, y0 : y0 + sh * (oh - 1) + 1 : sh, x0 : x0 + sw * (ow - 1) + 1 : sw, :] += blocks[:, i, j]
    return batch_first(image[:, ph : ph + h, pw : pw + w, :])


def batch_last(x):
    """``x`` ``[N, C, *rest]`` as a new contiguous ``[C, *rest, N]``.

    In two copies, ``[C, N, rest]`` and then ``[C, rest, N]`` inside each channel's block:
    each reads memory in runs or within a block that stays in cache. One transposing
    copy of the whole array reads it with the batch's stride, three times slower on the
    CNN's 64 x 32 x 8 x 8 gradients (207 us against 65 us)."""
    n, c = x.shape[:2]
    channels_first = np.ascontiguousarray(x.reshape(n, c, -1).transpose(1, 0, 2))
    return np.ascontiguousarray(channels_first.transpose(0, 2, 1)).reshape(c, *x.shape[2:], n)


def batch_first(x):
    """The inverse of :func:`batch_last`: ``[C, *rest, N]`` as a new ``[N, C, *rest]``."""
    c, n = x.shape[0], x.shape[-1]
    per_channel = np.ascontiguousarray(x.reshape(c, -1, n).transpose(0, 2, 1))     # [C, N, rest]
    return np.ascontiguousarray(per_channel.transpose(1, 0, 2)).reshape(n, c, *x.shape[1:-1])


def _patches(x, kernel_size, stride, padding, dilation, pad_value):
    """A read-only view ``[N, C, kh, kw, oh, ow]`` of the (padded) batch ``x``: element
    ``(n, c, i, j, r, q)`` is ``x_padded[n, c, r*sh + i*dh, q*sw + j*dw]``."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _params(kernel_size, stride, padding, dilation)
    n, c, h, w = x.shape
    oh, ow = unfold_output_size((h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    if ph or pw:            # (np.pad does the same in twice the time)
        padded = np.full((n, c, h + 2 * ph, w + 2 * pw), pad_value, dtype=x.dtype)
        padded[:, :, ph : ph + h, pw : pw + w] = x
        x = padded
    sn, sc, sy, sx = x.strides
    return as_strided(x, shape=(n, c, kh, kw, oh, ow),
                      strides=(sn, sc, sy * dh, sx * dw, sy * sh, sx * sw), writeable=False)


def fold(cols, output_size, kernel_size, stride=1, padding=0, *, dilation=1):
    """col2im: sum sliding local blocks into an image, like ``torch.nn.functional.fold``.

    Args:
        cols: array ``[N, C*kh*kw, L]`` (or unbatched ``[C*kh*kw, L]``) in
            the layout :func:`unfold` produces.
        output_size: ``(H, W)`` of the image (int or pair), without padding.
        kernel_size, stride, padding, dilation: int or ``(h, w)`` pair, as in
            ``torch.nn.functional.fold``; positional order
            ``(kernel_size, stride, padding)``, ``dilation`` keyword-only
            (torch's positional order differs, see :func:`unfold`).

    Returns:
        A new array ``[N, C, H, W]`` (``[C, H, W]`` if unbatched), same
        dtype as ``cols``. Every column is added back at its patch position;
        where patches overlap the values are *summed*, and values that land
        in the padding are dropped. So ``fold(unfold(x))`` is ``x`` times the
        number of patches covering each pixel, not ``x``.

    ``fold`` is the adjoint of :func:`unfold` for the same geometry
    (``<unfold(x), y> == <x, fold(y)>``), hence each is the other's backward.
    """
    cols, unbatched = _batched(cols, 3, "fold expects [N, C*kh*kw, L] or [C*kh*kw, L]")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = _params(kernel_size, stride, padding, dilation)
    h, w = _int_pair(output_size, "output_size")
    oh, ow = unfold_output_size((h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw))
    n, ckk, L = cols.shape
    if ckk % (kh * kw):
        raise ValueError(
            f"fold: dimension 1 of cols ({ckk}) is not divisible by kh*kw = {kh * kw}"
        )
    if L != oh * ow:
        raise ValueError(
            f"fold: cols has {L} blocks but output_size {h}x{w} with this "
            f"kernel/dilation/padding/stride gives {oh}x{ow} = {oh * ow}"
        )
    c = ckk // (kh * kw)

    blocks = cols.reshape(n, c, kh, kw, oh, ow)
    if (dh, dw) == (1, 1) and (sh, sw) == (kh, kw) and (oh * kh, ow * kw) == (h + 2 * ph, w + 2 * pw):
        # The patches tile the image (max-pooling's usual geometry): nothing overlaps,
        # so one transposing copy puts every value in place.
        out = blocks.transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h + 2 * ph, w + 2 * pw)
    else:
        out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
        for i in range(kh):  # loop over kernel offsets only; each += is a strided
            y0 = i * dh      # slab covering every patch position at once
            for j in range(kw):
                x0 = j * dw
                out[:, :, y0 : y0 + sh * (oh - 1) + 1 : sh, x0 : x0 + sw * (ow - 1) + 1 : sw] += (
                    blocks[:, :, i, j]
                )
    out = out[:, :, ph : ph + h, pw : pw + w]
    if ph or pw:
        out = np.ascontiguousarray(out)
    return out[0] if unbatched else out
