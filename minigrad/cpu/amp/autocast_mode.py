"""``torch.cpu.amp.autocast``: the older spelling of ``torch.amp.autocast("cpu")`` (deprecated).

PyTorch counterpart: ``torch/cpu/amp/autocast_mode.py``.
"""
import warnings

from ...amp import autocast_mode as _autocast_mode

__all__ = ["autocast"]


class autocast(_autocast_mode.autocast):
    """``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``:
    warns that it is deprecated, then is ``torch.amp.autocast("cpu", ...)``."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype or _autocast_mode.get_autocast_dtype("cpu"), enabled=enabled,
                         cache_enabled=cache_enabled)
