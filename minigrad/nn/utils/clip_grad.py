"""Gradient clipping (``torch/nn/utils/clip_grad.py``).

Everything here runs without recording a graph and changes the ``.grad`` tensors in
place. The total norm is the norm of the per-tensor norms, i.e. the norm of all the
gradients seen as one vector; ``clip_grad_norm_`` scales every gradient by
``min(max_norm / (total_norm + 1e-6), 1)`` (also when that is 1) and returns the
total norm as a 0-d tensor.
"""
import functools
import types
import warnings

import numpy as np

from ... import grad_mode
from ..._tensor import Tensor as _Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _no_grad(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with grad_mode.no_grad():
            return fn(*args, **kwargs)
    return wrapper


def _vector_norm(a, p):
    """The ``p``-norm of a numpy array seen as a vector, computed in float64."""
    a = np.abs(a.astype(np.float64)).ravel()
    if p == float("inf"):
        return a.max() if a.size else 0.0
    if p == float("-inf"):
        return a.min() if a.size else float("inf")
    if p == 0:
        return float(np.count_nonzero(a))
    if p == 1:
        return a.sum()
    if p == 2:
        return np.sqrt(np.dot(a, a))
    return (a ** p).sum() ** (1.0 / p)


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """``torch.nn.utils.get_total_norm``: the ``norm_type``-norm of ``tensors`` taken as one
    vector (``inf`` for the largest absolute value). A 0-d tensor of their dtype;
    ``tensor(0.)`` for no tensors. ``foreach`` is accepted and ignored."""
    tensors = [tensors] if isinstance(tensors, _Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _Tensor._wrap(np.array(0.0, dtype=np.float32))
    dtype = np.result_type(*(t._array.dtype for t in tensors))
    with np.errstate(all="ignore"):
        norms = np.array([_vector_norm(t._array, norm_type) for t in tensors])
        total = np.asarray(_vector_norm(norms, norm_type), dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return _Tensor._wrap(total)


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """``torch.nn.utils.clip_grads_with_norm_``: scale the gradients by
    ``min(max_norm / (total_norm + 1e-6), 1)``, given the total norm."""
    if isinstance(parameters, _Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    total = total_norm._array
    with np.errstate(all="ignore"):     # in the total norm's precision, as PyTorch
        coef = np.asarray(float(max_norm), dtype=total.dtype) / (total + np.asarray(1e-6, dtype=total.dtype))
    coef = np.minimum(coef, np.asarray(1.0, dtype=total.dtype))
    for g in grads:
        g.mul_(_Tensor._wrap(coef.astype(g._array.dtype)))


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """``torch.nn.utils.clip_grad_norm_``: :func:`get_total_norm` of the gradients that
    exist, then :func:`clip_grads_with_norm_`; returns the total norm (before clipping)."""
    if isinstance(parameters, _Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (a ``FutureWarning``, as PyTorch)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """``torch.nn.utils.clip_grad_value_``: clamp every gradient to
    ``[-clip_value, clip_value]`` in place."""
    if isinstance(parameters, _Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
