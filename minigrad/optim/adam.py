"""``optim.Adam`` and ``optim.AdamW`` (``torch/optim/adam.py``, single-tensor path)."""
import math

import numpy as np

from .._tensor import Tensor as _Tensor
from .optimizer import Optimizer as _Optimizer, _scalar_like, _use_grad_for_differentiable

__all__ = ["Adam", "AdamW"]


class Adam(_Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, maximize=False)``, PyTorch's formulas, step ``t`` from 1::

        g = grad (+ weight_decay * param)
        m = m + (1 - beta1) * (g - m)            exp_avg.lerp_(g, 1 - beta1)
        v = beta2 * v + (1 - beta2) * g * g
        denom = sqrt(v) / sqrt(1 - beta2**t) + eps
        param -= lr / (1 - beta1**t) * m / denom
    """

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("minigrad's optimizers do not support differentiable=True")
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled
        # foreach, fused and capturable name PyTorch's other kernels: kept as options
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused, decoupled_weight_decay=decoupled_weight_decay))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad = group["weight_decay"], group["amsgrad"]
            for p, x, g in self._params_with_grad(group):
                state = self.state[p]
                if not state:  # tensors, as PyTorch keeps them (step is a float32 0-dim tensor)
                    state["step"] = _Tensor._wrap(np.zeros((), dtype=np.float32))
                    state["exp_avg"] = _Tensor._wrap(np.zeros_like(x))
                    state["exp_avg_sq"] = _Tensor._wrap(np.zeros_like(x))
                    if amsgrad:
                        state["max_exp_avg_sq"] = _Tensor._wrap(np.zeros_like(x))
                state["step"]._array += np.float32(1)
                t = float(state["step"]._array)
                if wd != 0:
                    if group.get("decoupled_weight_decay", self._decoupled):
                        x *= _scalar_like(1 - lr * wd, x)        # param.mul_(1 - lr * wd)
                    else:
                        g = g + _scalar_like(wd, x) * x
                m, v = state["exp_avg"]._array, state["exp_avg_sq"]._array
                m = m + _scalar_like(1 - beta1, x) * (g - m)                  # lerp with weight < 0.5
                v = v * _scalar_like(beta2, x) + _scalar_like(1 - beta2, x) * (g * g)
                state["exp_avg"]._array[...], state["exp_avg_sq"]._array[...] = m, v
                bias_correction1 = 1 - beta1 ** t
                bias_correction2 = 1 - beta2 ** t
                step_size = lr / bias_correction1
                bias_correction2_sqrt = math.sqrt(bias_correction2)
                if amsgrad:
                    v = np.maximum(state["max_exp_avg_sq"]._array, v)
                    state["max_exp_avg_sq"]._array[...] = v
                denom = np.sqrt(v) / _scalar_like(bias_correction2_sqrt, x) + _scalar_like(eps, x)
                self._add_to(p, _scalar_like(-step_size, x) * (m / denom))
        return loss


class AdamW(Adam):
    """``AdamW``: Adam with decoupled weight decay (``param *= 1 - lr * weight_decay``
    before the Adam update); default ``weight_decay=1e-2``."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, **kwargs):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kwargs)
