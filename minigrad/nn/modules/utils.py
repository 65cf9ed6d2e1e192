"""Argument helpers of the layers (PyTorch: ``torch/nn/modules/utils.py``)."""

__all__ = []


def _pair(value):
    """``torch.nn.modules.utils._pair``: ``3`` -> ``(3, 3)``; a pair (tuple or list) is
    returned as a tuple."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)
