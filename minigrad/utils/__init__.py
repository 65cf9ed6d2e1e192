"""``minigrad.utils``: hook handles (``hooks``) and activation checkpointing (``checkpoint``)."""
from . import hooks

__all__ = []
