"""A few of ``torch.nn.init``'s initialisers, in place, on minigrad's generator."""
import math

import numpy as np

from .. import _creation
from .. import grad_mode

__all__ = ["constant_", "ones_", "zeros_", "uniform_", "normal_", "xavier_uniform_",
           "kaiming_uniform_"]


def _fill(tensor, values):
    with grad_mode.no_grad():
        tensor._array[...] = values
        tensor._version_counter[0] += 1
    return tensor


def _fans(tensor):
    shape = tensor.shape
    fan_in = shape[1] * int(np.prod(shape[2:])) if len(shape) > 1 else shape[0]
    fan_out = shape[0] * int(np.prod(shape[2:])) if len(shape) > 1 else shape[0]
    return fan_in, fan_out


def zeros_(tensor):
    return _fill(tensor, 0)


def ones_(tensor):
    return _fill(tensor, 1)


def constant_(tensor, val):
    return _fill(tensor, val)


def uniform_(tensor, a=0.0, b=1.0):
    return _fill(tensor, _creation._rng().uniform(a, b, size=tensor.shape))


def normal_(tensor, mean=0.0, std=1.0):
    return _fill(tensor, _creation._rng().normal(mean, std, size=tensor.shape))


def xavier_uniform_(tensor, gain=1.0):
    fan_in, fan_out = _fans(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    fan_in, fan_out = _fans(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    gain = math.sqrt(2.0 / (1 + a ** 2)) if nonlinearity == "leaky_relu" else math.sqrt(2.0)
    bound = gain * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound)
