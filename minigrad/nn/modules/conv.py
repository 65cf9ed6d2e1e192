"""``Conv2d`` (``torch/nn/modules/conv.py``): one ``ConvolutionBackward0`` op."""
import math

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter as _Parameter
from .module import Module as _Module
from .utils import _pair

__all__ = ["Conv2d"]


class Conv2d(_Module):
    """``nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    dilation=1, groups=1, bias=True)`` (``groups=1`` and ``padding_mode="zeros"``
    only). PyTorch's initialisation bounds, minigrad's generator."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups != 1 or padding_mode != "zeros":
            raise NotImplementedError("minigrad's Conv2d supports groups=1, padding_mode='zeros'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = _Parameter(_creation.empty((out_channels, in_channels // groups, *self.kernel_size),
                                                 **factory_kwargs))
        if bias:
            self.bias = _Parameter(_creation.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Registered first, initialised in place here, as in PyTorch (see ``Linear``):
        ``init.kaiming_uniform_(weight, a=sqrt(5))``, the bias U(±1/sqrt(fan_in))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        return s.format(**self.__dict__)
