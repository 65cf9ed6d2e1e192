"""``torch.nn.init``: filling parameters in place, through the ``Tensor`` methods.

PyTorch counterpart: ``torch/nn/init.py``. Every initialiser works as PyTorch's does:
under ``no_grad``, by calling the tensor's own in-place methods (``uniform_``,
``normal_``, ``fill_``, ``zero_``, ``copy_``, ``mul_``), so code that patches or counts
``Tensor.uniform_`` sees the same calls with the same arguments as under PyTorch (the
layers' ``reset_parameters`` go through here too: ``Linear`` and ``Conv2d`` call
``kaiming_uniform_(weight, a=sqrt(5))`` and ``uniform_`` on the bias). The numbers come
from minigrad's generator (``manual_seed``), not PyTorch's, so the same seed draws
different values; a meta tensor (no data) is left as it is.

Where minigrad differs: ``eye_`` copies ``torch.eye`` in (PyTorch writes it with
``out=``), and ``orthogonal_`` runs its QR factorisation in numpy (it draws its normal
matrix with ``normal_`` as PyTorch does).
"""
import math
import warnings

import numpy as np

from .. import _creation
from ..grad_mode import no_grad as _no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
           "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The gain that keeps activations' variance through ``nonlinearity``: 1 for linear
    layers and sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for
    leaky_relu (slope ``param``, default 0.01), 3/4 for selu."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, float) or (isinstance(param, int) and not isinstance(param, bool)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight: input and output features (dims 1 and 0) times
    the size of a convolution's receptive field (the product of the other dims)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for size in tensor.shape[2:]:
        receptive_field *= size
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Values drawn from U(a, b): ``tensor.uniform_(a, b)``."""
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Values drawn from N(mean, std**2): ``tensor.normal_(mean, std)``."""
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Values drawn from N(mean, std**2) restricted to [a, b], by rejection, as PyTorch
    2.13 samples them: normal draws redrawn where they fall outside when that is likely
    enough (the interval holds more than 30% of the mass), else uniform draws on [a, b]
    accepted with the normal density's ratio to its peak."""
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with _no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            low = _creation.tensor(a, dtype=tensor.dtype).item()    # the bounds as the dtype holds them
            high = _creation.tensor(b, dtype=tensor.dtype).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                redrawn = _creation.empty(*result.shape, dtype=result.dtype).normal_(mean, std,
                                                                                     generator=generator)
                result = _creation.where(outside, redrawn, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_density_gap(candidates):     # log N(x) - log N(mode), in place
            return candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        def rejected(candidates):
            accept = _creation.empty(*tensor.shape, dtype=tensor.dtype).uniform_(generator=generator)
            return accept.log_() > candidates

        tensor.uniform_(a, b, generator=generator)
        candidates = log_density_gap(tensor.clone())
        pending = rejected(candidates)
        result = tensor
        while pending.any():
            candidates = _creation.empty(*tensor.shape, dtype=tensor.dtype)
            candidates.uniform_(a, b, generator=generator)
            result = _creation.where(pending, candidates, result)
            pending = _creation.where(pending, rejected(log_density_gap(candidates)), pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Every value ``val``: ``tensor.fill_(val)``."""
    with _no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with _no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with _no_grad():
        return tensor.zero_()


def eye_(tensor):
    """The identity matrix (a 2-d tensor only)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _no_grad():
        return tensor.copy_(_creation.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """The Dirac delta of a 3-, 4- or 5-d convolution weight: a convolution that passes
    as many input channels through unchanged as it can (per group)."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_per_group = sizes[0] // groups
    centre = tuple(size // 2 for size in sizes[2:])
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot's uniform initialisation: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot's normal initialisation: N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's uniform initialisation: U(-bound, bound), bound = gain * sqrt(3 / fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    with _no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's normal initialisation: N(0, std**2), std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    with _no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, times ``gain``: the Q of the QR factorisation of a
    normal matrix, its signs fixed by R's diagonal (dims after the first are flattened)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = _creation.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    matrix = flattened._array.astype(np.float64)
    if rows < cols:
        matrix = matrix.T
    q, r = np.linalg.qr(matrix)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with _no_grad():
        tensor.view(rows, cols).copy_(_creation.tensor(q, dtype=tensor.dtype))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-d weight drawn from N(0, std**2) with ``ceil(sparsity * rows)`` zeros in each
    column, at rows picked by ``torch.randperm``."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with _no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[_creation.randperm(rows)[:num_zeros], col] = 0
    return tensor


def _make_deprecate(method):
    """The older name without the trailing underscore, warning that it is deprecated."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)
    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: ``nn.init.{new_name}``."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
