"""Activations (``torch/nn/modules/activation.py``)."""
from .. import functional as F
from .module import Module as _Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "LogSoftmax"]


class ReLU(_Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class GELU(_Module):
    """``nn.GELU(approximate="none")``: ``x * Phi(x)``."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Tanh(_Module):
    def forward(self, input):
        return input.tanh()


class Sigmoid(_Module):
    def forward(self, input):
        return input.sigmoid()


class Softmax(_Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=4)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=4)
