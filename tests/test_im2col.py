"""im2col / col2im kernels (minigrad.nn._im2col) against torch.nn.functional."""

import numpy as np
import pytest

from minigrad.nn._im2col import (fold, fold_batch_last, unfold, unfold_batch_last, unfold_output_size,
                                 windows)

# (N, C, H, W, kernel_size, stride, padding, dilation)
CASES = [
    (2, 3, 5, 5, 3, 1, 0, 1),
    (2, 3, 5, 5, 3, 1, 1, 1),
    (1, 1, 8, 8, 3, 1, 1, 1),
    (4, 2, 7, 6, (3, 2), 2, 1, 1),        # non-square kernel, stride 2
    (2, 2, 9, 7, (2, 4), (2, 1), (0, 2), 1),  # everything a pair
    (3, 1, 6, 6, 2, 2, 0, 1),             # pooling geometry, no overlap
    (2, 2, 8, 8, 3, 3, 1, 1),             # stride > overlap, unused border
    (2, 2, 4, 4, 3, 3, 1, 1),             # tiles that cover the padded image exactly
    (1, 4, 4, 4, 1, 1, 0, 1),             # 1x1 kernel
    (2, 1, 4, 5, (4, 5), 1, 0, 1),        # kernel = whole image, L = 1
    (2, 3, 10, 9, 3, (2, 3), (2, 1), (2, 1)),  # dilation
]
IDS = [f"N{c[0]}C{c[1]}{c[2]}x{c[3]}-k{c[4]}-s{c[5]}-p{c[6]}-d{c[7]}" for c in CASES]


def _geom(case):
    n, c, h, w, k, s, p, d = case
    return (n, c, h, w), dict(kernel_size=k, stride=s, padding=p, dilation=d)


def _kk(k):
    return k * k if isinstance(k, int) else k[0] * k[1]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_unfold_matches_torch(case):
    torch = pytest.importorskip("torch")
    shape, g = _geom(case)
    x = np.random.default_rng(0).standard_normal(shape)
    got = unfold(x, **g)
    want = torch.nn.functional.unfold(torch.from_numpy(x), **g).numpy()
    assert got.shape == want.shape and got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)  # pure copies: bit-exact


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fold_matches_torch(case):
    torch = pytest.importorskip("torch")
    (n, c, h, w), g = _geom(case)
    oh, ow = unfold_output_size((h, w), g["kernel_size"], g["stride"], g["padding"], g["dilation"])
    cols = np.random.default_rng(1).standard_normal((n, c * _kk(g["kernel_size"]), oh * ow))
    got = fold(cols, (h, w), **g)
    want = torch.nn.functional.fold(torch.from_numpy(cols), (h, w), **g).numpy()
    assert got.shape == want.shape == (n, c, h, w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.torch
def test_unbatched_matches_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = np.random.default_rng(2).standard_normal((2, 6, 5))
    np.testing.assert_array_equal(
        unfold(x, (2, 3), stride=1, padding=1), F.unfold(torch.from_numpy(x), (2, 3), padding=1).numpy()
    )
    cols = unfold(x, (2, 3), stride=1, padding=1)
    np.testing.assert_allclose(
        fold(cols, (6, 5), (2, 3), padding=1),
        F.fold(torch.from_numpy(cols), (6, 5), (2, 3), padding=1).numpy(),
        rtol=1e-12,
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fold_is_adjoint_of_unfold(case):
    """<unfold(x), y> == <x, fold(y)> for random x, y (no torch needed)."""
    (n, c, h, w), g = _geom(case)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, c, h, w))
    cols = unfold(x, **g)
    y = rng.standard_normal(cols.shape)
    lhs = np.vdot(cols, y)
    rhs = np.vdot(x, fold(y, (h, w), **g))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def test_fold_sums_overlaps():
    """fold(unfold(ones)) counts how many patches cover each pixel."""
    x = np.ones((1, 1, 4, 4))
    counts = fold(unfold(x, 3, padding=1), (4, 4), 3, padding=1)[0, 0]
    want = np.array([[4, 6, 6, 4], [6, 9, 9, 6], [6, 9, 9, 6], [4, 6, 6, 4]], dtype=float)
    np.testing.assert_array_equal(counts, want)
    # Non-overlapping patches: fold inverts unfold.
    x = np.random.default_rng(4).standard_normal((2, 3, 6, 4))
    np.testing.assert_array_equal(fold(unfold(x, 2, stride=2), (6, 4), 2, stride=2), x)


def test_layout_by_hand():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4)
    cols = unfold(x, (2, 2))  # 2x3 = 6 positions, rows c*4 + i*2 + j
    assert cols.shape == (1, 8, 6)
    assert cols.dtype == np.float32
    np.testing.assert_array_equal(cols[0, 0], [0, 1, 2, 4, 5, 6])   # c0, (0,0)
    np.testing.assert_array_equal(cols[0, 3], [5, 6, 7, 9, 10, 11])  # c0, (1,1)
    np.testing.assert_array_equal(cols[0, 4], [12, 13, 14, 16, 17, 18])  # c1, (0,0)


def test_int_and_pair_arguments_agree():
    x = np.random.default_rng(5).standard_normal((2, 2, 6, 7))  # H != W
    a = unfold(x, 3, 2, 1)
    b = unfold(x, (3, 3), stride=(2, 2), padding=[1, 1], dilation=(1, 1))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fold(a, (6, 7), 3, 2, 1), fold(b, [6, 7], (3, 3), (2, 2), (1, 1)))


def test_result_is_a_fresh_writeable_array():
    x = np.random.default_rng(6).standard_normal((2, 3, 4, 4))
    keep = x.copy()
    cols = unfold(x, 1)  # 1x1 kernel: could have been a mere view of x
    assert cols.flags.writeable and not np.shares_memory(cols, x)
    cols[...] = 0
    np.testing.assert_array_equal(x, keep)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_windows_are_unfold_kernel_offset_first(case):
    shape, geom = _geom(case)
    x = np.random.default_rng(8).standard_normal(shape)
    cols = unfold(x, **geom)
    n, c = shape[:2]
    per_offset = windows(x, **geom)
    kk = per_offset.shape[0]
    expected = cols.reshape(n, c, kk, -1).transpose(2, 0, 1, 3)
    np.testing.assert_array_equal(per_offset.reshape(kk, n, c, -1), expected)
    assert all(block.flags.c_contiguous for block in per_offset)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_batch_last_patches_are_unfold_with_the_batch_moved_last(case):
    shape, geom = _geom(case)
    x = np.random.default_rng(9).standard_normal(shape)
    cols = unfold(x, **geom)                                   # [N, CKK, L]
    np.testing.assert_array_equal(unfold_batch_last(x, **geom),
                                  cols.transpose(1, 2, 0).reshape(cols.shape[1], -1))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_batch_last_fold_is_fold_with_the_batch_moved_last(case):
    shape, geom = _geom(case)
    n, c, h, w = shape
    cols = np.random.default_rng(10).standard_normal(unfold(np.zeros(shape), **geom).shape)
    folded = fold_batch_last(cols.transpose(1, 2, 0).reshape(cols.shape[1], -1), (h, w), n, **geom)
    np.testing.assert_allclose(folded, fold(cols, (h, w), **geom), rtol=1e-12, atol=1e-12)
    assert folded.shape == shape and folded.flags.c_contiguous


def test_pad_value_for_max_pool():
    x = -np.abs(np.random.default_rng(7).standard_normal((2, 3, 5, 5))) - 1  # all < 0
    cols = unfold(x, 3, stride=2, padding=1, pad_value=-np.inf)
    pooled = cols.reshape(2, 3, 9, -1).max(axis=2).reshape(2, 3, 3, 3)
    # a zero pad would have won every border max
    assert np.all(pooled < 0)
    assert pooled[0, 0, 0, 0] == x[0, 0, :2, :2].max()


def test_bad_geometry_raises():
    x = np.zeros((1, 1, 4, 4))
    with pytest.raises(ValueError):
        unfold(x, 5)
    with pytest.raises(ValueError):
        unfold(np.zeros((4, 4)), 2)
    with pytest.raises(ValueError):
        unfold(x, 2, stride=0)
    with pytest.raises(ValueError):
        fold(np.zeros((1, 4, 10)), (4, 4), 2)  # 4x4, k2 -> 9 blocks, not 10
    with pytest.raises(ValueError):
        fold(np.zeros((1, 5, 9)), (4, 4), 2)  # 5 not divisible by 4


def _conv2d_via_unfold(x, weight, bias, stride, padding):
    n, _, h, w = x.shape
    c_out, _, kh, kw = weight.shape
    oh, ow = unfold_output_size((h, w), (kh, kw), stride, padding)
    cols = unfold(x, (kh, kw), stride, padding)                # [N, C*kh*kw, L]
    y = weight.reshape(c_out, -1) @ cols                       # [N, C_out, L]
    return y.reshape(n, c_out, oh, ow) + bias[:, None, None]


@pytest.mark.torch
@pytest.mark.parametrize(
    "n, c_in, c_out, hw, k, stride, padding",
    [
        (64, 1, 8, (8, 8), 3, 1, 1),
        (4, 3, 5, (9, 7), (3, 2), 2, (1, 0)),
        (2, 2, 4, (6, 6), 1, 1, 0),
        (3, 4, 2, (10, 10), 5, 2, 2),
    ],
)
def test_conv2d_via_unfold_matmul_matches_torch(n, c_in, c_out, hw, k, stride, padding):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    k2 = (k, k) if isinstance(k, int) else k
    x = rng.standard_normal((n, c_in, *hw))
    weight = rng.standard_normal((c_out, c_in, *k2))
    bias = rng.standard_normal(c_out)
    got = _conv2d_via_unfold(x, weight, bias, stride, padding)
    want = torch.nn.functional.conv2d(
        torch.from_numpy(x), torch.from_numpy(weight), torch.from_numpy(bias),
        stride=stride, padding=padding,
    ).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.torch
def test_conv2d_input_grad_is_fold_of_matmul():
    """conv2d's input gradient = fold(W^T @ dy), compared with torch autograd."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 2, 7, 6))
    weight = rng.standard_normal((4, 2, 3, 3))
    dy = rng.standard_normal((3, 4, 4, 3))  # stride 2, padding 1 -> 4x3
    tx = torch.from_numpy(x).requires_grad_()
    torch.nn.functional.conv2d(tx, torch.from_numpy(weight), stride=2, padding=1).backward(
        torch.from_numpy(dy)
    )
    dcols = weight.reshape(4, -1).T @ dy.reshape(3, 4, -1)
    dx = fold(dcols, (7, 6), 3, stride=2, padding=1)
    np.testing.assert_allclose(dx, tx.grad.numpy(), rtol=1e-10, atol=1e-10)
