"""``minigrad.utils``: hook handles (``hooks``) and activation checkpointing (``checkpoint``)."""
from . import hooks  # noqa: F401  (minigrad.utils.hooks, as torch.utils.hooks)

__all__ = []
