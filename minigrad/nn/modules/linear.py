"""``Identity`` and ``Linear`` (``torch/nn/modules/linear.py``)."""
import math

from ... import _creation
from ...grad_mode import no_grad as _no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter as _Parameter, UninitializedParameter as _UninitializedParameter
from .lazy import LazyModuleMixin as _LazyModuleMixin
from .module import Module as _Module

__all__ = ["Identity", "Linear", "LazyLinear"]


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


class LazyLinear(_LazyModuleMixin, Linear):
    """``nn.LazyLinear(out_features, bias=True)``: a ``Linear`` whose ``in_features`` is the
    last dimension of its first input; it becomes a ``Linear`` then (``nn/modules/lazy.py``)."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)
        self.weight = _UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = _UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with _no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:       # materialised by load_state_dict: take the size from there
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal "
                                     f"to in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]
