"""The bundled 8x8 digits data set (minigrad.data.load_digits)."""

from pathlib import Path

import numpy as np
import pytest

import minigrad.data
from minigrad.data import load_digits


def test_whole_set_shape_dtype_range():
    images, targets = load_digits()
    assert images.shape == (1797, 8, 8)
    assert targets.shape == (1797,)
    assert images.dtype == np.float32
    assert targets.dtype == np.int64
    assert images.min() == 0.0 and images.max() == 1.0
    # raw values are integers 0..16, scaled by 1/16
    np.testing.assert_array_equal(images * 16, np.round(images * 16))


def test_dtype_argument():
    images, _ = load_digits(dtype=np.float64)
    assert images.dtype == np.float64
    with pytest.raises(TypeError):
        load_digits(dtype=np.int32)


def test_class_counts():
    _, targets = load_digits()
    counts = np.bincount(targets, minlength=10)
    assert len(counts) == 10 and targets.min() == 0 and targets.max() == 9
    np.testing.assert_array_equal(counts, [178, 182, 177, 183, 181, 182, 181, 179, 174, 180])
    assert counts.min() >= 170 and counts.max() <= 190


def _rows(images):
    return {row.tobytes() for row in images.reshape(len(images), -1)}


def test_split_sizes_disjoint_and_covering():
    x, y = load_digits()
    xtr, ytr = load_digits("train")
    xte, yte = load_digits("test")
    assert len(xtr) + len(xte) == 1797
    assert len(xte) == 359  # sum over classes of round(0.2 * n_class)
    assert len(xtr) == len(ytr) and len(xte) == len(yte)
    # Covering and disjoint as a multiset of (image, label) rows: the union
    # of the two sides, sorted, equals the whole set, sorted.
    def keyed(xx, yy):
        k = np.concatenate([xx.reshape(len(xx), -1), yy[:, None].astype(xx.dtype)], axis=1)
        return k[np.lexsort(k.T[::-1])]
    both = keyed(np.concatenate([xtr, xte]), np.concatenate([ytr, yte]))
    np.testing.assert_array_equal(both, keyed(x, y))


def test_split_is_stratified():
    _, y = load_digits()
    _, ytr = load_digits("train")
    _, yte = load_digits("test")
    n = np.bincount(y, minlength=10)
    nte = np.bincount(yte, minlength=10)
    np.testing.assert_array_equal(nte, np.rint(0.2 * n))
    np.testing.assert_array_equal(np.bincount(ytr, minlength=10), n - nte)


def test_determinism_and_seed():
    a = load_digits("test", seed=0)
    b = load_digits("test", seed=0)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    c = load_digits("test", seed=1)
    assert not np.array_equal(a[0], c[0])
    w1, w2 = load_digits(), load_digits()
    np.testing.assert_array_equal(w1[0], w2[0])
    np.testing.assert_array_equal(w1[1], w2[1])


def test_returned_arrays_are_independent():
    x, y = load_digits()
    x[...] = -1
    y[...] = -1
    x2, y2 = load_digits()
    assert x2.min() == 0.0 and y2.min() == 0


def test_bad_arguments():
    with pytest.raises(ValueError):
        load_digits("validation")
    with pytest.raises(ValueError):
        load_digits("train", test_fraction=1.0)


def test_licence_file_ships_next_to_data():
    here = Path(minigrad.data.__file__).parent
    text = (here / "DIGITS_LICENSE.txt").read_text()
    assert "CC BY 4.0" in text and "BSD 3-Clause" in text and "Alpaydin" in text
    raw = np.load(here / "digits.npz")
    assert raw["images"].dtype == np.uint8 and raw["images"].shape == (1797, 8, 8)
    assert raw["target"].dtype == np.uint8 and raw["images"].max() == 16


def test_equals_sklearn_load_digits():
    datasets = pytest.importorskip("sklearn.datasets")
    sk = datasets.load_digits()
    images, targets = load_digits(dtype=np.float64)
    np.testing.assert_array_equal(images * 16, sk.images)
    np.testing.assert_array_equal(images, sk.images / 16)
    np.testing.assert_array_equal(images.reshape(-1, 64) * 16, sk.data)
    np.testing.assert_array_equal(targets, sk.target)
