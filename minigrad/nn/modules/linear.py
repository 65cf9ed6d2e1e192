"""``Identity`` and ``Linear`` (``torch/nn/modules/linear.py``)."""
import math

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter as _Parameter
from .module import Module as _Module

__all__ = ["Identity", "Linear"]


def _reset_uniform(weight, bias, fan_in):
    """PyTorch's default initialisation of ``Linear`` and ``Conv2d``, in place:
    ``kaiming_uniform_(weight, a=sqrt(5))``, which is U(±1/sqrt(fan_in)), then the bias
    U(±1/sqrt(fan_in)), drawn from minigrad's generator (``manual_seed`` controls it)."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    init.uniform_(weight, -bound, bound)
    if bias is not None:
        init.uniform_(bias, -bound, bound)


def _register_weight_and_bias(module, weight_shape, bias):
    """Register ``weight`` (of ``weight_shape``) and ``bias`` (one per output, or None)
    uninitialised, for ``reset_parameters()`` to fill in place: PyTorch's layers register
    first, so a registration hook sees each parameter before it is initialised."""
    module.weight = _Parameter(_creation.empty(*weight_shape))
    if bias:
        module.bias = _Parameter(_creation.empty(weight_shape[0]))
    else:
        module.register_parameter("bias", None)


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
    weights: ``lin.weight = nn.Parameter(torch.tensor(...))``. As in PyTorch, the
    parameters are registered first and initialised in place afterwards
    (:meth:`reset_parameters`), so a registration hook's replacement is initialised too."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _register_weight_and_bias(self, (out_features, in_features), bias)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self.weight, self.bias, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
