"""``LayerNorm`` (``torch/nn/modules/normalization.py``)."""
import numpy as np

from ..._tensor import Tensor as _Tensor
from .. import functional as F
from ..parameter import Parameter as _Parameter
from .module import Module as _Module

__all__ = ["LayerNorm"]


class LayerNorm(_Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _Parameter(_Tensor._wrap(np.ones(self.normalized_shape, dtype=np.float32)))
            if bias:
                self.bias = _Parameter(_Tensor._wrap(np.zeros(self.normalized_shape, dtype=np.float32)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
