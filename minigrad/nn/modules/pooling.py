"""``MaxPool2d`` (``torch/nn/modules/pooling.py``): one ``MaxPool2DWithIndicesBackward0`` op;
``AdaptiveAvgPool2d`` (output size 1: global average pooling)."""
from .. import functional as F
from .module import Module as _Module

__all__ = ["MaxPool2d", "AdaptiveAvgPool2d"]


class MaxPool2d(_Module):
    """``nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
    return_indices=False, ceil_mode=False)``; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}").format(**self.__dict__)


class AdaptiveAvgPool2d(_Module):
    """``nn.AdaptiveAvgPool2d(output_size)``; minigrad supports ``output_size=1``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"
