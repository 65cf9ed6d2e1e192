"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

PyTorch counterpart: ``torch/optim/optimizer.py``. Updates are written in numpy on the
parameters' own arrays (in place, as PyTorch's ``param.add_`` under ``no_grad``), in the
parameters' dtype, following PyTorch's single-tensor ("for-loop") implementation, which
is what PyTorch runs for CPU tensors: a float32 model steps like PyTorch's to ~1e-7.
"""
from collections import defaultdict as _defaultdict

import numpy as np

from .._tensor import Tensor as _Tensor
from ..utils._grads import zero_grads as _zero_grads

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: ``Optimizer(params, defaults)``. ``params`` is an iterable of
    tensors or of dicts (parameter groups with their own options)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = _defaultdict(dict)
        self.param_groups = []
        if isinstance(params, _Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, _Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, _Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None (default), or to zeros in place."""
        _zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        raise NotImplementedError

    def _closure_loss(self, closure):
        if closure is None:
            return None
        from ..grad_mode import enable_grad
        with enable_grad():
            return closure()

    @staticmethod
    def _params_with_grad(group):
        """``(p, p's array, the array of its gradient)`` for each parameter of ``group``
        that has a gradient (the others are skipped, as in PyTorch's ``_init_group``); the
        gradient is negated when the group has ``maximize=True``."""
        for p in group["params"]:
            if p.grad is not None:
                g = p.grad._array
                yield p, p._array, (-g if group["maximize"] else g)

    @staticmethod
    def _add_to(p, delta):
        """``param.add_(delta)`` as PyTorch's optimizers do it: add in place to the
        parameter's own array (one pass, no new array) and bump its version."""
        p._array += delta
        p._version_counter[0] += 1

    # --- state dict ---------------------------------------------------------------------
    def state_dict(self):
        """PyTorch's layout: ``{"state": {index: {...}}, "param_groups": [{..., "params":
        [index, ...]}]}`` with parameters numbered in group order."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {index[id(p)]: {k: (_Tensor._wrap(v._array.copy()) if isinstance(v, _Tensor) else v)
                                for k, v in s.items()}
                 for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = {}
        for saved, group in zip(groups, self.param_groups):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")
            for i, p in zip(saved["params"], group["params"]):
                params[i] = p
            group.update({k: v for k, v in saved.items() if k != "params"})
        self.state = _defaultdict(dict)
        for i, s in state_dict["state"].items():
            self.state[params[i]] = {k: (_Tensor._wrap(v._array.copy()) if isinstance(v, _Tensor) else v)
                                     for k, v in s.items()}

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _f(value, like):
    """A Python number as a numpy scalar of the parameter's dtype (PyTorch computes
    ``param.add_(grad, alpha=-lr)`` with ``alpha`` in the tensor's precision)."""
    return np.asarray(value, dtype=like.dtype)
