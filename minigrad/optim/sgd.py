"""``optim.SGD`` (``torch/optim/sgd.py``, the single-tensor implementation)."""
import numpy as np

from .._tensor import Tensor as _Tensor
from .optimizer import (Optimizer as _Optimizer, _scalar_like, _use_grad_for_differentiable,
                        required as _required)

__all__ = ["SGD"]


class SGD(_Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
    maximize=False)``, PyTorch's formulas::

        g = grad (+ weight_decay * param)
        buf = g                                  first step
        buf = momentum * buf + (1 - dampening) * g   later steps
        g = g + momentum * buf if nesterov else buf
        param -= lr * g
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not _required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if differentiable:
            raise NotImplementedError("minigrad's optimizers do not support differentiable=True")
        # foreach and fused name PyTorch's multi-tensor kernels: same formulas, kept as options
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov = group["weight_decay"], group["nesterov"]
            for p, x, g in self._params_with_grad(group):
                if wd != 0:
                    g = g + _scalar_like(wd, x) * x
                if momentum != 0:
                    state = self.state[p]
                    if state.get("momentum_buffer") is None:  # a tensor, as in PyTorch
                        buf = np.array(g, dtype=x.dtype, copy=True)
                        state["momentum_buffer"] = _Tensor._wrap(buf)
                    else:
                        buf = (state["momentum_buffer"]._array * _scalar_like(momentum, x)
                               + _scalar_like(1 - dampening, x) * g)
                        state["momentum_buffer"]._array[...] = buf
                    g = g + _scalar_like(momentum, x) * buf if nesterov else buf
                self._add_to(p, _scalar_like(-lr, x) * g)
        return loss
