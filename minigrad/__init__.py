"""minigrad: PyTorch's autograd and hook system, re-implemented small and readable on numpy.

``import minigrad as torch`` runs hook code written for PyTorch and prints the same
trace (docs/differences.md lists the few deliberate differences). Start with the lessons in
``lessons/``; the engine is ``minigrad/autograd/engine.py``.
"""
from . import dtypes, return_types  # noqa: F401 (submodules of the namespace, kept out of __all__)
from ._device import device, get_default_device, set_default_device
from .dtypes import (bfloat16, bool_ as bool, double, dtype, finfo, float, float16, float32, float64,
                     get_default_dtype, half, iinfo, int, int32, int64, long)
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from ._tensor import Tensor
from ._tensor_methods import Size
from ._format import set_printoptions
from ._legacy import BFloat16Tensor, BoolTensor, DoubleTensor, FloatTensor, HalfTensor, LongTensor
from ._creation import (abs, add, all, allclose, any, arange, argmax, as_tensor, cat, chunk, clamp, clip,
                        clone, cos, detach, div, empty, equal, exp, eye, flatten, from_numpy, full, full_like,
                        gather, get_rng_state, index_add, is_tensor, isfinite, isinf, isnan, linspace, log,
                        log_softmax, manual_seed, masked_fill, matmul, max, maximum, mean, min, mm, mul, neg,
                        numel, ones, ones_like, permute, pow, prod, rand, randint, randn, randperm, ravel,
                        reciprocal, relu, reshape, round, set_rng_state, sigmoid, sign, sin, softmax, sort,
                        split, sqrt, squeeze, stack, std, std_mean, sub, sum, t, tanh, tensor, topk,
                        transpose, tril, triu, unbind, unsqueeze, var, var_mean, where, zeros, zeros_like)
from .serialization import load, save
from ._ops import is_exact_float32_math, set_exact_float32_math
from . import amp, autograd, cuda, utils  # noqa: F401 (the same)
from .amp.autocast_mode import (autocast, autocast_decrement_nesting, autocast_increment_nesting,
                                clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype,
                                is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled,
                                set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
                                set_autocast_dtype, set_autocast_enabled)
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled

# The torch namespace minigrad mirrors (module objects such as nn, autograd aside).
__all__ = [
    "abs", "add", "all", "allclose", "any", "arange", "argmax", "as_tensor", "autocast",
    "autocast_decrement_nesting", "autocast_increment_nesting", "bfloat16", "BFloat16Tensor", "bool",
    "BoolTensor", "cat", "chunk", "clamp", "clear_autocast_cache", "clip", "clone", "cos", "detach",
    "device", "div", "double", "DoubleTensor", "dtype", "empty", "enable_grad", "equal", "exp", "eye",
    "finfo", "flatten", "float", "float16", "float32", "float64", "FloatTensor", "from_numpy", "full",
    "full_like", "gather", "get_autocast_cpu_dtype", "get_autocast_dtype", "get_default_device",
    "get_default_dtype", "get_rng_state", "half", "HalfTensor", "iinfo", "index_add", "inference_mode",
    "int", "int32", "int64", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
    "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled", "is_grad_enabled",
    "is_inference_mode_enabled", "is_tensor", "isfinite", "isinf", "isnan", "linspace", "load", "log",
    "log_softmax", "long", "LongTensor", "manual_seed", "masked_fill", "matmul", "max", "maximum",
    "mean", "min", "mm", "mul", "neg", "no_grad", "numel", "ones", "ones_like", "permute", "pow",
    "prod", "rand", "randint", "randn", "randperm", "ravel", "reciprocal", "relu", "reshape", "round",
    "save", "set_anomaly_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled", "set_default_device",
    "set_grad_enabled", "set_printoptions", "set_rng_state", "sigmoid", "sign", "sin", "Size",
    "softmax", "sort", "split", "sqrt", "squeeze", "stack", "std", "std_mean", "sub", "sum", "t",
    "tanh", "Tensor", "tensor", "topk", "transpose", "tril", "triu", "unbind", "unsqueeze", "var",
    "var_mean", "where", "zeros", "zeros_like",
    # minigrad's own switch (no torch counterpart): exact float32 transcendentals or numpy's
    "is_exact_float32_math", "set_exact_float32_math",
]

# The PyTorch version minigrad mirrors, for code that gates features on torch.__version__;
# minigrad's own release is its package metadata (importlib.metadata.version("minigrad")).
from .torch_version import __version__ as __version__


def __getattr__(name):
    # nn, optim and the lazily imported parts are loaded on first use, as in PyTorch.
    import importlib
    if name in ("nn", "optim", "viz", "data", "jit", "futures", "amp", "cpu"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'minigrad' has no attribute '{name}'")
