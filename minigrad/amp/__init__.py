"""``torch.amp``: automatic mixed precision (``autocast``) on the CPU.

PyTorch counterpart: ``torch/amp/``. ``GradScaler`` (loss scaling for float16 on GPUs) is
not here: bfloat16 on the CPU needs none.
"""
from . import autocast_mode
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available

__all__ = ["autocast", "autocast_mode", "custom_bwd", "custom_fwd", "is_autocast_available"]
