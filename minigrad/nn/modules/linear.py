"""``Identity`` and ``Linear`` (``torch/nn/modules/linear.py``)."""
import math

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter as _Parameter
from .module import Module as _Module

__all__ = ["Identity", "Linear"]


class Identity(_Module):
    """``nn.Identity``: returns its input (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(_Module):
    """``nn.Linear(in_features, out_features, bias=True, device=None, dtype=None)``:
    ``y = x @ W.T + b``.

    Initialised as PyTorch does (:meth:`reset_parameters`), but drawn from minigrad's
    generator: the same seed gives different numbers than in PyTorch. To compare with
    PyTorch, assign the weights: ``lin.weight = nn.Parameter(torch.tensor(...))``. As in
    PyTorch, the parameters are registered first (``torch.empty`` on ``device``, so on the
    meta device they take no memory) and initialised in place afterwards, so a
    registration hook's replacement is initialised too."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _Parameter(_creation.empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = _Parameter(_creation.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: ``init.kaiming_uniform_(weight, a=sqrt(5))``, which is
        U(±1/sqrt(fan_in)), then the bias U(±1/sqrt(fan_in)) by ``init.uniform_``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
