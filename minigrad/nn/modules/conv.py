"""``Conv2d`` (``torch/nn/modules/conv.py``): one ``ConvolutionBackward0`` op."""
import math

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter as _Parameter, UninitializedParameter as _UninitializedParameter
from .lazy import LazyModuleMixin as _LazyModuleMixin
from .module import Module as _Module
from .utils import _pair

__all__ = ["Conv2d", "LazyConv2d"]


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


class LazyConv2d(_LazyModuleMixin, Conv2d):
    """``nn.LazyConv2d(out_channels, kernel_size, ...)``: a ``Conv2d`` whose ``in_channels``
    comes from its first input (dim 1, or 0 unbatched); it becomes a ``Conv2d`` then."""

    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         **factory_kwargs)
        self.weight = _UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = _UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        if input.dim() not in (3, 4):
            raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to {self.__class__.__name__}, "
                               f"but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == 4 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()
