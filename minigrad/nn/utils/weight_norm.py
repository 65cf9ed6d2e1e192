"""Weight normalization by a forward pre-hook (``torch/nn/utils/weight_norm.py``).

``weight_norm(module)`` replaces the parameter ``weight`` by two, ``weight_g`` (the norm
of each output row) and ``weight_v`` (the direction), and registers a forward pre-hook,
a :class:`WeightNorm` object, that recomputes ``module.weight = g * v / ||v||`` before
every forward. The recomputation is PyTorch's ``_weight_norm``: one op
(``WeightNormInterfaceBackward0``, saving ``v``, ``g`` and the norms ``result1``) when the
norm is taken along the first or last dimension, else the composition
``v * (g / norm_except_dim(v))``. PyTorch deprecates this function in favour of
``parametrizations.weight_norm`` and says so with a FutureWarning, as here.
"""
import warnings

import numpy as np

from ..._dispatch import Op as _Op, apply_op as _apply_op
from ..parameter import Parameter as _Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _other_dims(ndim, dim):
    return tuple(d for d in range(ndim) if d != dim)


def _norms(v, dim):
    """``norm_except_dim(v, 2, dim)`` as numpy: shaped like ``g`` (1 except along ``dim``)."""
    v64 = v.astype(np.float64)
    return np.sqrt(np.sum(v64 * v64, axis=_other_dims(v.ndim, dim), keepdims=True))


def _weight_norm_forward(v, g, dim):
    norms = _norms(v, dim)
    return (v * (g / norms)).astype(v.dtype), norms.astype(v.dtype)


def _weight_norm_grads(grads, ctx):
    """(grad_v, grad_g) written with minigrad ops, so they have derivatives too."""
    gw, v, g = grads[0], ctx.v, ctx.g
    dims = _other_dims(v.dim(), ctx.dim)
    norms = (v * v).sum(dims, keepdim=True).sqrt()
    grad_g = (gw * v).sum(dims, keepdim=True) / norms
    return g / norms * (gw - v * (grad_g / norms)), grad_g


_weight_norm_interface = _Op(
    "_weight_norm_interface", "WeightNormInterfaceBackward0", _weight_norm_forward, ("v", "g"),
    multi_output=True, saves={"v": None, "g": None, "result1": None}, saved_attrs=("dim",),
    grads={"v": lambda grads, ctx: _weight_norm_grads(grads, ctx)[0],
           "g": lambda grads, ctx: _weight_norm_grads(grads, ctx)[1]})


def _norm_except_dim(v, dim):
    """PyTorch's ``norm_except_dim(v, 2, dim)``: the norm of the whole tensor for
    ``dim=-1``, else one norm per index along ``dim`` (kept as a size-1 dimension elsewhere)."""
    if dim == -1:
        return v.norm()
    return (v * v).sum(_other_dims(v.dim(), dim), keepdim=True).sqrt()


def _weight_norm(v, g, dim=0):
    """``torch._weight_norm(v, g, dim)``: ``v * (g / norm_except_dim(v, 2, dim))``."""
    if dim in (0, v.dim() - 1) and v.dim() > 0:
        return _apply_op(_weight_norm_interface, (v, g), {"dim": dim})[0]
    return v * (g / _norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook ``weight_norm`` registers (``torch.nn.utils.weight_norm.WeightNorm``):
    calling it sets ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        # stacklevel=1: the warning names this line, as PyTorch's (raised by its @deprecated
        # wrapper) names a line of the library, not the caller's
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=1)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", _Parameter(_norm_except_dim(weight, fn.dim).data))
        module.register_parameter(name + "_v", _Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, _Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """``torch.nn.utils.weight_norm(module, name="weight", dim=0)``: ``name`` becomes
    ``name_g`` (magnitude, one per index along ``dim``; one for the whole tensor with
    ``dim=None``) and ``name_v`` (direction), recombined before each forward. Returns
    the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """``torch.nn.utils.remove_weight_norm``: the hook goes, ``name`` is a plain parameter
    again (holding the current ``g * v / ||v||``)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
