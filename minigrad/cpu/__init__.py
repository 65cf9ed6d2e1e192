"""``torch.cpu``: the CPU as a device module (what scripts query the way they query
``torch.cuda``), and its deprecated ``torch.cpu.amp.autocast``.

PyTorch counterpart: ``torch/cpu/__init__.py``.
"""
from . import amp

__all__ = ["amp", "is_available", "device_count", "current_device", "synchronize"]


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Waits for the CPU's pending work: there is none to wait for."""
