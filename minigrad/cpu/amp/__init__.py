"""``torch.cpu.amp``: the older spelling of ``torch.amp`` for the CPU (deprecated)."""
from .autocast_mode import autocast

__all__ = ["autocast"]
