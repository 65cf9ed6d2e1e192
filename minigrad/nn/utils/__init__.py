"""``minigrad.nn.utils`` (``torch.nn.utils``): gradient clipping, parameters as one
vector, and PyTorch's hook-based utilities: pruning (``nn.utils.prune``), weight and
spectral normalization (forward pre-hooks) and parametrizations (``parametrize``,
``parametrizations``: properties computed on access)."""
from . import parametrizations, parametrize, prune
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "prune", "parametrize",
           "parametrizations", "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]
