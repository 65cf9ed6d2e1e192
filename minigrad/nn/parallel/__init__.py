"""``minigrad.nn.parallel`` (``torch.nn.parallel``): only ``DataParallel``, as PyTorch runs
it on a machine without GPUs."""
from .data_parallel import DataParallel

__all__ = ["DataParallel"]
