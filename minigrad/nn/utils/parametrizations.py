"""Parametrizations built on ``parametrize`` (``torch/nn/utils/parametrizations.py``):
``weight_norm``, the modern form of ``nn.utils.weight_norm``.

``parametrizations.weight_norm(module)`` registers a parametrization whose
``right_inverse`` splits the weight into ``original0`` (the magnitude, the old
``weight_g``) and ``original1`` (the direction, ``weight_v``); ``module.weight`` is
recomputed on every access (``parametrize.cached()`` reuses it). A load-state-dict
pre-hook renames the keys of a state dict saved with the old ``nn.utils.weight_norm``.
"""
from ..modules.module import Module as _Module
from . import parametrize
from .weight_norm import _norm_except_dim, _weight_norm

__all__ = ["weight_norm"]


class _WeightNorm(_Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """``torch.nn.utils.parametrizations.weight_norm(module, name="weight", dim=0)``:
    ``module.<name>`` is ``g * v / ||v||`` computed from
    ``module.parametrizations.<name>.original0`` (g) and ``original1`` (v)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module
