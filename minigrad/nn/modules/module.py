"""``nn.Module`` and every module-level hook.

PyTorch counterpart: ``torch/nn/modules/module.py``. Read :meth:`Module._call_impl`
next to PyTorch's: the order is the same line for line.

What ``module(*args, **kwargs)`` does when hooks exist::

    global forward pre-hooks, then the module's own   (may replace args / kwargs)
    [BackwardHook wraps the tensor args]               (full backward (pre-)hooks only)
    result = forward(*args, **kwargs)
    global forward hooks, then the module's own        (may replace result)
    [BackwardHook wraps the tensor outputs]
    [old-style backward hooks go on result.grad_fn]
    on an exception: the always_call forward hooks that did not run yet, then re-raise

Hooks live in ordered dicts keyed by their handle's id, and every loop iterates a
*snapshot* (a tuple or list built before the first call), so a hook that removes or
adds another during a call does not change that call (scenario s57 in tests/differential/scenarios).
"""
import functools
import warnings
import weakref
from collections import OrderedDict as _OrderedDict, namedtuple as _namedtuple

import numpy as np

from ..._tensor import Size as _Size, Tensor as _Tensor
from ...utils._grads import zero_grads as _zero_grads
from ...utils.hooks import add_hook as _add_hook
from ._functions import BackwardHook as _BackwardHook
from ..parameter import Buffer as _Buffer, Parameter as _Parameter

__all__ = [
    "Module", "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
    "register_module_backward_hook",
]

# --- global hooks: they run before every module's own hooks of the same kind ----------
_global_backward_pre_hooks = _OrderedDict()
_global_backward_hooks = _OrderedDict()
_global_is_full_backward_hook = None        # None: no kind chosen yet; then sticky
_global_forward_pre_hooks = _OrderedDict()
_global_forward_hooks = _OrderedDict()
_global_forward_hooks_always_called = _OrderedDict()
_global_forward_hooks_with_kwargs = _OrderedDict()

#: the dicts in which each Module keeps its own hooks, keyed by their handle's id (the
#: ``*_with_kwargs`` and ``*_always_called`` ones mark the hooks registered with that flag)
_HOOK_DICTS = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
               "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs")


def register_module_forward_pre_hook(hook):
    """``torch.nn.modules.module.register_module_forward_pre_hook``: ``hook(module, args)``
    before the forward of *every* module, before the module's own pre-hooks."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``register_module_forward_hook``: ``hook(module, args, output)`` after the forward
    of every module, before the module's own forward hooks."""
    return _add_hook(_global_forward_hooks, hook,
                     flags=[(_global_forward_hooks_always_called, always_call),
                            (_global_forward_hooks_with_kwargs, with_kwargs)])


def _backward_hook_kind(kind, full, where):
    """The kind of backward hooks an owner keeps once one more is registered: ``True``
    (full), ``False`` (the deprecated non-full ones) or ``None`` (none yet). PyTorch
    refuses to mix the two kinds on one owner."""
    if kind is (not full):
        raise RuntimeError(f"Cannot use both regular backward hooks and full backward hooks {where}. "
                           "Please use only one of them.")
    return full


def register_module_full_backward_pre_hook(hook):
    """``register_module_full_backward_pre_hook``: ``hook(module, grad_output)`` for every
    module, before the module's own backward pre-hooks."""
    return _add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """``register_module_full_backward_hook``: ``hook(module, grad_input, grad_output)``
    for every module, before the module's own full backward hooks."""
    global _global_is_full_backward_hook
    _global_is_full_backward_hook = _backward_hook_kind(_global_is_full_backward_hook, True,
                                                        "as a global Module hook")
    return _add_hook(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    """Deprecated global version of :meth:`Module.register_backward_hook`."""
    global _global_is_full_backward_hook
    _global_is_full_backward_hook = _backward_hook_kind(_global_is_full_backward_hook, False,
                                                        "as a global Module hook")
    return _add_hook(_global_backward_hooks, hook)


class _WrappedHook:
    """An old-style backward hook turned into a node post-hook: ``hook(module, grad_input,
    grad_output)`` with the module held weakly."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args)
        return self.hook(*args)


class _IncompatibleKeys(_namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return first + "\n" + "\n".join((num_spaces * " ") + line for line in s)


def _typed_attr(module, name, cls, cls_name):
    """``getattr(module, name)``, which must exist and be a ``cls``: one step of
    ``Module.get_submodule`` and the last of ``get_parameter``, with PyTorch's
    AttributeError messages (PyTorch repeats these checks in each)."""
    if not hasattr(module, name):
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    value = getattr(module, name)
    if not isinstance(value, cls):
        raise AttributeError(f"`{name}` is not an {cls_name}")
    return value


def _values(named_items):
    """The values of ``(name, value)`` pairs, lazily: what ``parameters()``, ``buffers()``,
    ``children()`` and ``modules()`` yield from their ``named_*`` twins (PyTorch writes the
    same loop, ``for _, param in self.named_parameters(): yield param``, in each). They
    stay generator functions, so they print as PyTorch's do (``<generator object
    Module.parameters at ...>``)."""
    return (value for _, value in named_items)


def _tensor_tuple_or_warn(value, does_not, grad_name):
    """``value`` (a module's output or input) as a tuple of Tensors; None, after a
    FutureWarning, when it is neither a Tensor nor a tuple of Tensors, so that a non-full
    backward hook will miss part of its ``grad_name``. These are the first two checks of
    PyTorch's ``Module._maybe_warn_non_full_backward_hook``, and the warning points at its
    caller, as PyTorch's does."""
    if isinstance(value, _Tensor):
        return (value,)
    if isinstance(value, tuple) and all(isinstance(v, _Tensor) for v in value):
        return value
    warnings.warn(f"Using non-full backward hooks on a Module that {does_not} a single Tensor or "
                  "a tuple of Tensors is deprecated and will be removed in future versions. This "
                  f"hook will be missing some of the {grad_name}. Please use "
                  "register_full_backward_hook to get the documented behavior.",
                  FutureWarning, stacklevel=3)
    return None


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """``torch.nn.Module``: subclass it, create parameters and sub-modules in
    ``__init__`` (after ``super().__init__()``), compute in ``forward``, and call the
    module (not ``forward``) so the hooks run."""

    training = True
    forward = _forward_unimplemented
    _version = 1

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments")
        # Module.__setattr__ sorts values into _parameters/_modules/_buffers, which do
        # not exist yet: set them directly, as PyTorch does with super().__setattr__.
        set_attr = object.__setattr__
        set_attr(self, "training", True)
        set_attr(self, "_parameters", _OrderedDict())
        set_attr(self, "_buffers", _OrderedDict())
        set_attr(self, "_non_persistent_buffers_set", set())
        set_attr(self, "_modules", _OrderedDict())
        set_attr(self, "_is_full_backward_hook", None)
        for name in _HOOK_DICTS:
            set_attr(self, name, _OrderedDict())

    # --- registration ----------------------------------------------------------------
    def _check_new_name(self, kind, name, registry):
        """The checks ``register_parameter`` and ``register_buffer`` make, with PyTorch's
        messages: ``kind`` is ``"parameter"`` or ``"buffer"``, ``registry`` the name of
        the dict the entry goes in (``"_parameters"`` or ``"_buffers"``)."""
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        self._check_new_name("parameter", name, "_parameters")
        if param is not None and not isinstance(param, _Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        self._check_new_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, _Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, _Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, _Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, _Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    if buffers is None:
                        raise AttributeError("cannot assign buffer before Module.__init__() call")
                    if isinstance(value, _Buffer):       # nn.Buffer(...): registers itself
                        persistent = value.persistent
                    else:                               # re-assigning keeps persistence
                        persistent = name not in self._non_persistent_buffers_set
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__()) | set(self._parameters) | set(self._modules) | set(self._buffers)
        return sorted(k for k in keys if not k[0].isdigit())

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            mod = _typed_attr(mod, item, Module, "nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        return _typed_attr(self.get_submodule(module_path), name, _Parameter, "nn.Parameter")

    # --- iteration -------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        yield from _values(self.named_parameters(recurse=recurse))

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        yield from _values(self.named_buffers(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        yield from _values(self.named_children())

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        yield from _values(self.named_modules())

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) not in memo:
            if remove_duplicate:
                memo.add(id(self))
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # --- modes and gradients -----------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the ``.grad`` of every parameter: to None (the default, as in PyTorch
        2.x), or to zeros in place."""
        _zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn):
        """Convert every parameter's and buffer's data with ``fn(numpy array)``, in place
        on the Parameter objects (so optimizers keep pointing at them)."""
        for module in self.modules():
            for key, p in module._parameters.items():
                if p is not None:
                    p._array = fn(p._array)
                    if p.grad is not None:
                        p.grad = _Tensor._wrap(fn(p.grad._array))
            for key, b in module._buffers.items():
                if b is not None:
                    b._array = fn(b._array)
        return self

    def to(self, *args, **kwargs):
        from ... import dtypes
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.dtype):
                dtype = a
        if dtype is None:
            return self     # "cpu": nothing to move
        np_dtype = dtypes.to_numpy_dtype(dtype)
        return self._apply(lambda a: a.astype(np_dtype) if a.dtype.kind == "f" else a)

    def double(self):
        return self._apply(lambda a: a.astype(np.float64) if a.dtype.kind == "f" else a)

    def float(self):
        return self._apply(lambda a: a.astype(np.float32) if a.dtype.kind == "f" else a)

    def cpu(self):
        return self

    # --- state dict -----------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` from PyTorch's dotted names (``0.weight``, ``fc.bias``)
        to detached tensors sharing the parameters' data."""
        if destination is None:
            destination = _OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values into the parameters and buffers (in place, so optimizers keep
        working). Returns ``(missing_keys, unexpected_keys)``; with ``strict`` a
        mismatch raises PyTorch's ``RuntimeError``."""
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            array = value._array if isinstance(value, _Tensor) else np.asarray(value)
            if array.shape != target._array.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{_Size(array.shape)!r} from checkpoint, the shape in current model "
                              f"is {_Size(target._array.shape)!r}.")
                continue
            target._array[...] = array
            target._version_counter[0] += 1
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # --- hooks ------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args) -> None | new_args`` (a non-tuple is wrapped in a
        1-tuple); with ``with_kwargs``: ``hook(module, args, kwargs) -> None |
        (new_args, new_kwargs)``. ``prepend`` puts it first among this module's
        pre-hooks (global ones still run before)."""
        return _add_hook(self._forward_pre_hooks, hook, prepend=prepend,
                         flags=[(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output) -> None | new_output`` (``hook(module, args,
        kwargs, output)`` with ``with_kwargs``). ``always_call``: also run when forward
        raised (with ``output=None``); the exception still propagates."""
        return _add_hook(self._forward_hooks, hook, prepend=prepend,
                         flags=[(self._forward_hooks_with_kwargs, with_kwargs),
                                (self._forward_hooks_always_called, always_call)])

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output) -> None | new_grad_output``: runs when the
        gradients w.r.t. the module's outputs are ready; a returned tuple (same length)
        is what flows into the module."""
        return _add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output) -> None | new_grad_input``: runs when
        the gradients w.r.t. the module's (positional tensor) inputs are ready. See
        :class:`minigrad.nn.modules._functions.BackwardHook` for when it does not fire."""
        self._is_full_backward_hook = _backward_hook_kind(self._is_full_backward_hook, True,
                                                          "on a single Module")
        return _add_hook(self._backward_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook):
        """Deprecated (as in PyTorch): the hook becomes a post-hook of the node that made
        the *first output tensor*, i.e. of the module's last op only, so for a module of
        several ops ``grad_input`` are gradients w.r.t. that op's inputs, not the
        module's. Use :meth:`register_full_backward_hook`."""
        self._is_full_backward_hook = _backward_hook_kind(self._is_full_backward_hook, False,
                                                          "on a single Module")
        return _add_hook(self._backward_hooks, hook)

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        result = _tensor_tuple_or_warn(result, "does not return", "grad_output")
        if result is None:
            return
        inputs = _tensor_tuple_or_warn(inputs, "does not take as input", "grad_input")
        if inputs is None:
            return
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                          "structure is deprecated and will be removed in future versions. This hook "
                          "will be missing some grad_output.", FutureWarning, stacklevel=2)
        elif len(out_grad_fn) > 1:
            warnings.warn("Using a non-full backward hook when outputs are generated by different "
                          "autograd Nodes is deprecated and will be removed in future versions. This "
                          "hook will be missing some grad_output. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn("Using a non-full backward hook when the forward contains multiple "
                              "autograd Nodes is deprecated and will be removed in future versions. "
                              "This hook will be missing some grad_input. Please use "
                              "register_full_backward_hook to get the documented behavior.",
                              FutureWarning, stacklevel=2)

    # --- calling ----------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)

        result = None
        called_always_called_hooks = set()

        def inner():
            nonlocal result, args, kwargs
            full_backward_hooks, non_full_backward_hooks = [], []
            backward_pre_hooks = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

            if _global_forward_pre_hooks or self._forward_pre_hooks:
                # A tuple built before the first call: the snapshot (s57).
                for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                      *self._forward_pre_hooks.items()):
                    if hook_id in self._forward_pre_hooks_with_kwargs:
                        args_kwargs_result = hook(self, args, kwargs)
                        if args_kwargs_result is not None:
                            if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                                args, kwargs = args_kwargs_result
                            else:
                                raise RuntimeError(
                                    "forward pre-hook must return None or a tuple of (new_args, "
                                    f"new_kwargs), but got {args_kwargs_result}.")
                    else:
                        args_result = hook(self, args)
                        if args_result is not None:
                            if not isinstance(args_result, tuple):
                                args_result = (args_result,)
                            args = args_result

            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = _BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = forward_call(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                    if (hook_id in self._forward_hooks_always_called
                            or hook_id in _global_forward_hooks_always_called):
                        called_always_called_hooks.add(hook_id)
                    if (hook_id in self._forward_hooks_with_kwargs
                            or hook_id in _global_forward_hooks_with_kwargs):
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result

            if bw_hook:
                if not isinstance(result, (_Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor "
                                  f"or a tuple of Tensors but received {type(result)}")
                result = bw_hook.setup_output_hook(result)

            if non_full_backward_hooks:
                var = result
                while not isinstance(var, _Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, _Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result

        def run_always_called(hooks, always_called, with_kwargs, whose):
            """Run the always_call hooks of ``hooks`` that did not run yet; one that raises
            is reported in a warning and skipped (each of the two loops in PyTorch's
            ``except`` clause of ``_call_impl``)."""
            nonlocal result
            for hook_id, hook in hooks.items():
                if hook_id in always_called and hook_id not in called_always_called_hooks:
                    try:
                        if hook_id in with_kwargs:
                            hook_result = hook(self, args, kwargs, result)
                        else:
                            hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn(f"{whose} forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised in "
                                      f"forward: {str(e)}")

        try:
            return inner()
        except Exception:
            # The always_call forward hooks that did not run yet, global first. As in PyTorch,
            # a global one gets no kwargs here, even when registered with_kwargs.
            run_always_called(_global_forward_hooks, _global_forward_hooks_always_called, (),
                              "global module")
            run_always_called(self._forward_hooks, self._forward_hooks_always_called,
                              self._forward_hooks_with_kwargs, "module")
            raise

    __call__ = _call_impl

    # --- printing ------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)


def _typename(obj):
    if isinstance(obj, _Tensor):
        return obj.type()
    return type(obj).__module__ + "." + type(obj).__qualname__ \
        if type(obj).__module__ not in ("builtins",) else type(obj).__name__

