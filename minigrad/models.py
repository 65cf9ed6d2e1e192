"""Small ready-made models and a training loop on the bundled 8x8 digits.

The lessons use these for Grad-CAM, gradient-flow and FSDP-style examples::

    from minigrad import models
    model = models.make_cnn()
    result = models.train(model)          # ~98 % test accuracy in ~10 s
    result["test_accuracy"]

Everything is seeded (``seed=``), so a run prints and returns the same numbers every
time. ``progress=True`` shows one text line per epoch, updated in place (``\\r``), which
works in terminals and notebooks alike; ``progress=False`` prints nothing.
"""
import sys
import time

import numpy as np

from . import _creation, nn, optim
from ._tensor import Tensor as _Tensor
from .grad_mode import no_grad as _no_grad

__all__ = ["make_mlp", "make_cnn", "train", "evaluate", "load_split"]


def make_mlp(hidden=128, seed=0):
    """``Flatten -> Linear(64, hidden) -> ReLU -> Linear(hidden, 10)`` for 1x8x8 images."""
    _creation.manual_seed(seed)
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, hidden), nn.ReLU(),
        nn.Linear(hidden, 10),
    )


def make_cnn(channels=(16, 32), dropout=0.25, seed=0):
    """Two 3x3 convolutions (padding 1) with ReLU, one 2x2 max-pool, dropout and a
    linear classifier: ``[N, 1, 8, 8] -> [N, c1, 8, 8] -> [N, c2, 8, 8] -> [N, c2, 4, 4]
    -> [N, 10]``."""
    _creation.manual_seed(seed)
    c1, c2 = channels
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(),
        nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),                                                # 8x8 -> 4x4
        nn.Flatten(),
        nn.Dropout(dropout),
        nn.Linear(c2 * 4 * 4, 10),
    )


def load_split(split):
    """``(images [n, 1, 8, 8] float32 tensor, targets [n] int64 tensor)`` of the
    bundled digits (``minigrad.data.load_digits``)."""
    from .data import load_digits
    images, targets = load_digits(split=split)
    return (_Tensor._wrap(np.ascontiguousarray(images[:, None], dtype=np.float32)),
            _Tensor._wrap(np.asarray(targets, dtype=np.int64)))


def evaluate(model, images, targets, batch_size=512):
    """Accuracy (a float in [0, 1]) of ``model`` in eval mode, without a graph."""
    was_training = model.training
    model.eval()
    correct = 0
    with _no_grad():
        for start in range(0, len(targets), batch_size):
            logits = model(images[start:start + batch_size])
            correct += int((logits._array.argmax(1) == targets._array[start:start + batch_size]).sum())
    model.train(was_training)
    return correct / len(targets)


class _Progress:
    """One text line, rewritten in place with ``\\r``: no dependency, works in a
    terminal and in a notebook output cell."""

    def __init__(self, enabled, stream=None):
        self.enabled = enabled
        self.stream = stream or sys.stdout
        self.width = 0

    def update(self, text):
        if self.enabled:
            pad = max(0, self.width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self.stream.flush()
            self.width = len(text)

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def train(model, epochs=None, lr=None, batch_size=32, seed=0, optimizer="adam", progress=True,
          flatten=None):
    """Train ``model`` on the digits train split with cross-entropy; report test accuracy.

    Defaults: Adam, ``lr=3e-3``, ``epochs=20`` (MLP) / ``10`` (a model with
    convolutions), mini-batches of 32 shuffled by ``seed``.
    ``optimizer`` is ``"adam"``, ``"sgd"`` (momentum 0.9) or an optimizer instance.

    Returns a dict: ``test_accuracy``, ``train_accuracy``, ``losses`` (mean loss per
    epoch), ``seconds`` (wall time; not printed when ``progress=False``, so output
    stays deterministic).
    """
    has_conv = any(isinstance(m, nn.Conv2d) for m in model.modules())
    epochs = epochs if epochs is not None else (10 if has_conv else 20)
    lr = lr if lr is not None else 3e-3
    x_train, y_train = load_split("train")
    x_test, y_test = load_split("test")
    if isinstance(optimizer, optim.Optimizer):
        opt = optimizer
    elif optimizer == "adam":
        opt = optim.Adam(model.parameters(), lr=lr)
    elif optimizer == "sgd":
        opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        raise ValueError(f"unknown optimizer {optimizer!r}")
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(seed)
    _creation.manual_seed(seed)                 # dropout masks, if the model has any
    bar = _Progress(progress)
    n = len(y_train)
    losses = []
    start_time = time.perf_counter()
    model.train()
    for epoch in range(epochs):
        order = rng.permutation(n)
        total, batches = 0.0, 0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            xb = _Tensor._wrap(x_train._array[idx])
            yb = _Tensor._wrap(y_train._array[idx])
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item()
            batches += 1
            if progress and batches % max(1, n // batch_size // 10) == 0:
                done = (start + len(idx)) / n
                bar.update(f"epoch {epoch + 1}/{epochs} [{'#' * int(20 * done):<20}] "
                           f"loss {total / batches:.4f}")
        losses.append(total / batches)
        if progress:
            acc = evaluate(model, x_test, y_test)
            bar.update(f"epoch {epoch + 1}/{epochs} loss {losses[-1]:.4f} test acc {acc:.3f} "
                       f"({time.perf_counter() - start_time:.1f}s)")
    seconds = time.perf_counter() - start_time
    bar.close()
    return {
        "test_accuracy": evaluate(model, x_test, y_test),
        "train_accuracy": evaluate(model, x_train, y_train),
        "losses": losses,
        "seconds": seconds,
    }
