"""``Identity`` and ``Linear`` (``torch/nn/modules/linear.py``)."""
import math

import numpy as np

from ... import _creation
from ..._tensor import Tensor as _Tensor
from .. import functional as F
from ..parameter import Parameter as _Parameter
from .module import Module as _Module

__all__ = ["Identity", "Linear"]


def _uniform(shape, bound, dtype=np.float32):
    """U(-bound, bound) from minigrad's generator (``manual_seed`` controls it)."""
    return _Tensor._wrap(_creation._rng().uniform(-bound, bound, size=shape).astype(dtype))


class Identity(_Module):
    """``nn.Identity``: returns its input (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(_Module):
    """``nn.Linear(in_features, out_features, bias=True)``: ``y = x @ W.T + b``.

    Initialised as PyTorch does (``kaiming_uniform_(a=sqrt(5))``, i.e. weight and bias
    uniform in ``±1/sqrt(in_features)``), but drawn from minigrad's generator: the same
    seed gives different numbers than in PyTorch. To compare with PyTorch, assign the
    weights: ``lin.weight = nn.Parameter(torch.tensor(...))``."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        self.weight = _Parameter(_uniform((out_features, in_features), bound))
        if bias:
            self.bias = _Parameter(_uniform((out_features,), bound))
        else:
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
