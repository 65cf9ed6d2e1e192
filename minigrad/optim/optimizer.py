"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``,
and every optimizer hook.

PyTorch counterpart: ``torch/optim/optimizer.py``. Updates are written in numpy on the
parameters' own arrays (in place, as PyTorch's ``param.add_`` under ``no_grad``), in the
parameters' dtype, following PyTorch's single-tensor ("for-loop") implementation, which
is what PyTorch runs for CPU tensors: a float32 model steps like PyTorch's to ~1e-7.

The step seam. ``SGD`` and ``Adam`` only write the update (``step``); the hooks live
here, once. The first time an optimizer of a class is made, ``Optimizer.__init__``
replaces the class's ``step`` by :meth:`Optimizer.profile_hook_step` around it (marked
``hooked``, so it is wrapped once), as PyTorch's ``_patch_step_function`` does. So
``optimizer.step(*args, **kwargs)`` runs::

    global step pre-hooks, then the optimizer's own     hook(opt, args, kwargs) -> None | (args, kwargs)
    the class's step(*args, **kwargs)                    args[0] is the optimizer itself
    the optimizer's own step post-hooks, then global     hook(opt, args, kwargs)

(post-hooks: own before global, the reverse of the pre-hooks, as in PyTorch).
PyTorch also opens a profiler range (``Optimizer.step#SGD.step``) there; minigrad has
no profiler.

``state_dict()`` and ``load_state_dict()`` have pre- and post-hooks too, with PyTorch's
layout: ``{"state": {param id: {...}}, "param_groups": [{..., "params": [param id,
...]}]}``, ids numbered in group order.
"""
import functools
import warnings
from collections import OrderedDict as _OrderedDict, defaultdict as _defaultdict
from copy import deepcopy as _deepcopy

import numpy as np

from .. import grad_mode as _grad_mode
from .._tensor import Tensor as _Tensor
from ..utils._grads import zero_grads as _zero_grads
from ..utils.hooks import add_hook as _add_hook

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "required"]

_global_optimizer_pre_hooks = _OrderedDict()
_global_optimizer_post_hooks = _OrderedDict()


def _use_grad_for_differentiable(step):
    """PyTorch's decorator of its optimizers' ``step``: the step runs with grad mode set
    to the ``differentiable`` option (off: minigrad's optimizers refuse True). It reads
    the optimizer as ``args[0]``, so a step pre-hook that returns ``((), {})`` makes the
    step raise ``IndexError: tuple index out of range``, as PyTorch's does."""
    @functools.wraps(step)
    def _use_grad(*args, **kwargs):
        self = args[0]
        with _grad_mode.set_grad_enabled(self.defaults["differentiable"]):
            return step(*args, **kwargs)
    return _use_grad


def register_optimizer_step_pre_hook(hook):
    """``torch.optim.optimizer.register_optimizer_step_pre_hook``: ``hook(optimizer,
    args, kwargs) -> None | (new_args, new_kwargs)`` before the step of *every*
    optimizer, before the optimizer's own pre-hooks."""
    return _add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """``register_optimizer_step_post_hook``: ``hook(optimizer, args, kwargs)`` after the
    step of every optimizer, after the optimizer's own post-hooks."""
    return _add_hook(_global_optimizer_post_hooks, hook)


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

#: the dicts in which each Optimizer keeps its own hooks, keyed by their handle's id
_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
               "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
               "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


class Optimizer:
    """Base class: ``Optimizer(params, defaults)``. ``params`` is an iterable of
    tensors, of ``(name, tensor)`` pairs (``model.named_parameters()``: the names go in
    the group's ``param_names``) or of dicts (parameter groups with their own options)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, _OrderedDict())
        self._patch_step_function()
        if isinstance(params, _Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        self.state = _defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        # As in PyTorch, hooks are not pickled (nor deep-copied).
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            self.__dict__.setdefault(name, _OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    # --- the step seam --------------------------------------------------------------------
    @staticmethod
    def profile_hook_step(func):
        """``step`` wrapped with the step hooks (see the module docstring); PyTorch names
        it for the profiler range it also opens."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in (*_global_optimizer_pre_hooks.values(),
                             *self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
            out = func(*args, **kwargs)
            for post_hook in (*self._optimizer_step_post_hooks.values(),
                              *_global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self):
        """Wrap this optimizer's class's ``step`` with the hooks, unless it already is
        (PyTorch does the same, at the first instance of each class)."""
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = self.profile_hook_step(cls.step)
            cls.step.hooked = True

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None | (new_args, new_kwargs)`` before each
        ``step``, after the global pre-hooks. ``args`` starts with the optimizer itself,
        and so must a returned ``new_args``."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None`` after each ``step``, before the
        global post-hooks."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def add_param_group(self, param_group):
        """Add a group (a dict with ``"params"`` and its own options; the rest come from
        ``defaults``), with PyTorch's checks and messages."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, _Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a "
                            "list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in param_group["params"]:
            if not isinstance(p, _Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, "
                          "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                          "more information", stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                with_names = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {with_names} to the optimizer")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen.intersection(ids):
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
    def register_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer) -> None`` at the start of :meth:`state_dict`."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend=prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict) -> None | new_state_dict`` at the end of
        :meth:`state_dict`: it may change the dict in place or return another one, which
        the next hook receives and ``state_dict()`` returns."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend=prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict) -> None | new_state_dict`` at the start of
        :meth:`load_state_dict`, on a shallow copy of the dict the caller passed: it may
        change it in place or return the dict to load instead (a checkpoint written by
        an older optimizer can be converted here)."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend=prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer) -> None`` at the end of :meth:`load_state_dict`."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend=prepend)

    def state_dict(self):
        """PyTorch's layout: ``{"state": {id: {...}}, "param_groups": [{..., "params":
        [id, ...]}]}``, parameters numbered from 0 in group order. As in PyTorch, the
        per-parameter state dicts are the optimizer's own (not copies): copy the result
        (``copy.deepcopy``, or ``save``) to keep a snapshot."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            index.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index})
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, _Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    def load_state_dict(self, state_dict):
        """Take the options of each group and the per-parameter state from ``state_dict``
        (the groups must have as many parameters as this optimizer's). The ids are
        matched to this optimizer's parameters by position, as in PyTorch; floating
        state tensors are cast to their parameter's dtype (``step`` is kept as it is)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = _deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {i: p for s, g in zip(saved_groups, groups) for i, p in zip(s["params"], g["params"])}
        state = _defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = _cast_state(id_map[k], v)
            else:                   # kept as it is, as PyTorch does (old checkpoints)
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _cast_state(param, value, key=None):
    """One parameter's loaded state, as PyTorch's ``load_state_dict`` makes it: new
    containers, each floating tensor cast to the parameter's dtype (the same tensor when
    it already has it), ``step`` left as it is."""
    if isinstance(value, _Tensor):
        if key == "step" or not param.is_floating_point():
            return value
        return value.to(dtype=param.dtype)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


def _scalar_like(value, array):
    """A Python number as a numpy scalar of ``array``'s dtype (a parameter's): PyTorch
    computes ``param.add_(grad, alpha=-lr)`` with ``alpha`` in the tensor's precision."""
    return np.asarray(value, dtype=array.dtype)
