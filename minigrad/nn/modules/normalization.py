"""``LayerNorm`` (``torch/nn/modules/normalization.py``)."""
from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter as _Parameter
from .module import Module as _Module

__all__ = ["LayerNorm"]


class LayerNorm(_Module):
    """``nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
    device=None, dtype=None)``: weight 1 and bias 0 (:meth:`reset_parameters`)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _Parameter(_creation.empty(self.normalized_shape, **factory_kwargs))
            if bias:
                self.bias = _Parameter(_creation.empty(self.normalized_shape, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
