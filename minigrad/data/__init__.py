"""Small data sets bundled with minigrad (numpy arrays, no downloads).

Only :func:`load_digits` for now. Everything here returns plain numpy arrays;
wrap them in minigrad tensors yourself.
"""

from __future__ import annotations

from pathlib import Path as _Path

import numpy as np

__all__ = ["load_digits"]

_DIGITS_PATH = _Path(__file__).with_name("digits.npz")


def load_digits(split=None, seed=0, test_fraction=0.2, dtype=np.float32):
    """Load the 8x8 handwritten digits data set: 1,797 images of 0-9.

    What it is
        The test set of the UCI "Optical Recognition of Handwritten Digits"
        data set (E. Alpaydin & C. Kaynak, 1998): 32x32 binary bitmaps reduced
        to 8x8 by counting the "on" pixels in each 4x4 block, so raw pixels
        are integers 0..16. About 180 images per class (174 to 183).

    Licence
        The data are licensed CC BY 4.0 by the UCI Machine Learning
        Repository (cite: Alpaydin, E. & Kaynak, C. (1998). Optical
        Recognition of Handwritten Digits. UCI Machine Learning Repository.
        https://doi.org/10.24432/C50P49). Our copy was converted from the file
        scikit-learn (BSD-3-Clause) ships, ``digits.csv.gz``. See
        ``minigrad/data/DIGITS_LICENSE.txt`` for the full provenance.

    Parameters
        split: ``None`` for all 1,797 images (in file order), ``"train"`` or
            ``"test"`` for one side of a split.
        seed: seeds the split (``numpy.random.default_rng(seed)``); the same
            ``seed`` and ``test_fraction`` always give the same split, and the
            ``"train"`` and ``"test"`` sides are disjoint and together cover
            the whole set.
        test_fraction: share of each class that goes to ``"test"``.
        dtype: floating dtype of the images (default ``np.float32``).

    The split is *stratified*: within each digit class the images are
    shuffled with the seeded generator and ``round(test_fraction * n_class)``
    of them go to the test side, the rest to train, so both sides keep the
    class proportions (with the defaults: 359 test, 1,438 train). Each side
    is returned in file order (ascending index), not shuffled: shuffle your
    mini-batches yourself.

    Returns
        ``(images, targets)``: ``images`` float array ``[n, 8, 8]`` scaled to
        ``[0, 1]`` (raw value / 16); ``targets`` int64 array ``[n]`` of digit
        labels 0..9. For a conv net add the channel axis:
        ``images[:, None]`` -> ``[n, 1, 8, 8]``.

    Relation to scikit-learn
        With ``split=None`` this is ``sklearn.datasets.load_digits()`` with
        the same rows in the same order: ``images == sk.images / 16``,
        ``images.reshape(-1, 64) == sk.data / 16`` and ``targets ==
        sk.target`` (sklearn returns unscaled float64 0..16). The split has
        no sklearn counterpart here; it is close in spirit to
        ``train_test_split(..., stratify=target)`` but not the same indices.
    """
    if split not in (None, "train", "test"):
        raise ValueError(f'split must be None, "train" or "test", got {split!r}')
    if not np.issubdtype(np.dtype(dtype), np.floating):
        raise TypeError(f"dtype must be a floating type, got {np.dtype(dtype)}")

    with np.load(_DIGITS_PATH) as f:
        raw_images = f["images"]
        raw_target = f["target"]

    images = raw_images.astype(dtype) / np.asarray(16, dtype=dtype)
    targets = raw_target.astype(np.int64)
    if split is None:
        return images, targets

    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    rng = np.random.default_rng(seed)
    is_test = np.zeros(len(targets), dtype=bool)
    for c in range(10):  # ten classes, not a loop over samples
        idx = np.flatnonzero(targets == c)
        n_test = int(np.rint(test_fraction * len(idx)))
        is_test[rng.permutation(idx)[:n_test]] = True
    keep = is_test if split == "test" else ~is_test
    return images[keep], targets[keep]
