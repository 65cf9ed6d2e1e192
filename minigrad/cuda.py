"""``torch.cuda``, as seen by a CPU-only library: there is no GPU.

Enough for the common script lines ``device = "cuda" if torch.cuda.is_available() else
"cpu"`` and ``torch.cuda.manual_seed_all(seed)`` to run unchanged.
"""

__all__ = ["device_count", "is_available", "is_initialized", "manual_seed", "manual_seed_all"]


def is_available():
    """``torch.cuda.is_available()``: always False in minigrad."""
    return False


def device_count():
    """``torch.cuda.device_count()``: 0."""
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """``torch.cuda.manual_seed``: as in PyTorch without a GPU, silently nothing to seed."""


def manual_seed_all(seed):
    """``torch.cuda.manual_seed_all``: nothing to seed."""
