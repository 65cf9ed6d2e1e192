"""``nn.Module`` and every module-level hook.

PyTorch counterpart: ``torch/nn/modules/module.py``. Read :meth:`Module._call_impl`
next to PyTorch's: the order is the same, one named step (a method) per block of
PyTorch's ``inner``.

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

The hook levels outside a call:

- ``state_dict()`` and ``load_state_dict()``: pre- and post-hooks per module (see the
  "state dict" section of :class:`Module`), with PyTorch's layout (``_metadata``) and
  errors;
- registration: global hooks (``register_module_parameter_registration_hook`` and its
  buffer and module twins) that see, and may replace, every value a module registers.
"""
import functools
import warnings
import weakref
from collections import OrderedDict as _OrderedDict, namedtuple as _namedtuple
from collections.abc import Mapping as _Mapping


from ... import _device, dtypes as _dtypes
from ..._creation import empty as _empty
from ..._tensor import Tensor as _Tensor
from ...grad_mode import no_grad as _no_grad
from ...utils._grads import zero_grads as _zero_grads
from ...utils.hooks import add_hook as _add_hook
from ._functions import BackwardHook as _BackwardHook
from ..parameter import Buffer as _Buffer, Parameter as _Parameter

__all__ = [
    "Module", "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
    "register_module_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook",
]

# --- global registration hooks: they run inside register_parameter / register_buffer /
# add_module (and the attribute assignments that call them), before the value is stored
_global_buffer_registration_hooks = _OrderedDict()
_global_module_registration_hooks = _OrderedDict()
_global_parameter_registration_hooks = _OrderedDict()

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
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
               "_state_dict_hooks", "_state_dict_pre_hooks",
               "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


def register_module_buffer_registration_hook(hook):
    """``torch.nn.modules.module.register_module_buffer_registration_hook``:
    ``hook(module, name, buffer) -> None | new_buffer`` each time any module registers a
    buffer (``register_buffer``, or assigning an ``nn.Buffer`` or to an existing buffer's
    name; ``buffer`` may be None). A returned value is what gets registered."""
    return _add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """``register_module_module_registration_hook``: ``hook(module, name, submodule) ->
    None | new_submodule`` each time any module registers a child (``add_module``,
    ``register_module``, assigning a Module, or None to a child's name)."""
    return _add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """``register_module_parameter_registration_hook``: ``hook(module, name, param) ->
    None | new_param`` each time any module registers a Parameter
    (``register_parameter`` or assigning one); not for ``None``."""
    return _add_hook(_global_parameter_registration_hooks, hook)


def _registered_value(hooks, module, name, value):
    """``value`` after each registration hook in ``hooks``: a hook that returns
    something replaces it for the next hook and for the module (PyTorch writes this loop
    in each of its four places)."""
    for hook in hooks.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


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


class _HookedCall:
    """One ``module(...)`` call with hooks: its arguments and result as the hooks have
    replaced them so far, and the ids of the always_call forward hooks that already ran
    (the variables PyTorch's ``_call_impl`` shares with its ``inner``)."""

    __slots__ = ("args", "kwargs", "result", "always_called_hooks_run")

    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs
        self.result = None
        self.always_called_hooks_run = set()


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
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, _Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             f"must be created explicitly. To express '{name}' as a function of another "
                             "Tensor, compute the value in the forward() method.")
        self._parameters[name] = _registered_value(_global_parameter_registration_hooks, self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        self._check_new_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, _Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _registered_value(_global_buffer_registration_hooks, self, name, tensor)
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
        self._modules[name] = _registered_value(_global_module_registration_hooks, self, name, module)

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
                modules[name] = _registered_value(_global_module_registration_hooks, self, name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                modules[name] = _registered_value(_global_module_registration_hooks, self, name, value)
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
        """``Module.to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``: the
        floating parameters and buffers converted in place to ``dtype``; moved to another
        device (the CPU or the meta device) as new tensors, as PyTorch does. Moving meta
        tensors to the CPU raises: they have no data (use :meth:`to_empty`)."""
        device, dtype = kwargs.get("device"), kwargs.get("dtype")
        for a in args:
            if isinstance(a, _dtypes.dtype):
                dtype = a
            elif isinstance(a, _Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, (str, _device.device, int)) and not isinstance(a, bool):
                device = a
        if device is not None:
            device = _device.check_device(device)
            tensors = list(self.parameters()) + list(self.buffers())
            if device is not _device.META and any(t.is_meta for t in tensors):
                raise NotImplementedError(
                    "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
                    "instead of torch.nn.Module.to() when moving module from meta to a different device.")
            if any(t.device is not device for t in tensors):
                self._move(lambda t: t.to(device), recurse=True)
        return self if dtype is None else self._cast_floating(dtype)

    def to_empty(self, *, device, recurse=True):
        """``Module.to_empty(device=...)``: every parameter and buffer gets new storage of its
        shape and dtype on ``device``, without copying data (PyTorch leaves it
        uninitialised; minigrad fills zeros): what a model built on the meta device needs
        before its parameters are initialised or loaded."""
        return self._move(lambda t: _empty(*t.shape, dtype=t.dtype, device=device), recurse)

    def _move(self, fn, recurse):
        """Replace every parameter and buffer by ``fn(tensor)`` (new Parameter objects, as
        PyTorch's ``_apply`` makes when the storage changes device; ``.grad`` moves too)."""
        for module in self.modules() if recurse else (self,):
            for key, p in module._parameters.items():
                if p is not None:
                    moved = _Parameter(fn(p), p.requires_grad)
                    if p.grad is not None:
                        moved.grad = fn(p.grad)
                    module._parameters[key] = moved
            for key, b in module._buffers.items():
                if b is not None:
                    module._buffers[key] = fn(b)
        return self

    def _cast_floating(self, dtype):
        """Convert the floating parameters and buffers to ``dtype`` (integer buffers such
        as ``num_batches_tracked`` keep theirs)."""
        np_dtype = _dtypes.to_numpy_dtype(dtype)
        return self._apply(lambda a: a.astype(np_dtype) if _dtypes.is_floating(a.dtype) else a)

    def double(self):
        return self._cast_floating(_dtypes.float64)

    def float(self):
        return self._cast_floating(_dtypes.float32)

    def half(self):
        return self._cast_floating(_dtypes.float16)

    def bfloat16(self):
        return self._cast_floating(_dtypes.bfloat16)

    def cpu(self):
        return self

    # --- state dict -----------------------------------------------------------------------
    # What ``state_dict()`` and ``load_state_dict()`` run, for each module of the tree:
    #
    #   state_dict:       pre-hooks(module, prefix, keep_vars); own tensors; children;
    #                     post-hooks(module, destination, prefix, local_metadata)
    #   load_state_dict:  _load_from_state_dict (pre-hooks first, then copy this module's
    #                     tensors); children; post-hooks(module, incompatible_keys)
    #
    # A child's hooks therefore run inside its parent's: pre-hooks outer first, post-hooks
    # inner first.
    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars) -> None`` when :meth:`state_dict` reaches this
        module, before its tensors are added."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata) -> None`` once this module
        and its children are in ``state_dict`` (the whole dict, keys of other modules
        included): add, rename or drop keys in place. Returning a value raises
        RuntimeError, as in PyTorch."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The older, private form of :meth:`register_state_dict_post_hook`: the same
        call, but a returned dict replaces the result, and only on the module
        ``state_dict()`` was called on (for a child it is ignored: PyTorch issue 117437)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that "
                               "was previously registered via register_state_dict_post_hook")
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) -> None`` before this module copies its tensors.
        ``state_dict`` is load_state_dict's own copy (only the keys under ``prefix`` for
        a child): renaming keys in it converts a checkpoint. ``strict`` is always True
        here (PyTorch collects missing keys either way and decides at the end)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """The older, private form: without ``with_module`` the hook does not receive the
        module (``hook(state_dict, prefix, ...)``)."""
        return _add_hook(self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys) -> None`` once this module and its children
        are loaded. ``incompatible_keys.missing_keys`` and ``.unexpected_keys`` are the
        lists collected so far (the whole tree's); clearing them in place avoids the
        strict error. Returning a value raises AssertionError, as in PyTorch."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """This module's own parameters and persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` from PyTorch's dotted names (``0.weight``, ``fc.bias``)
        to detached tensors sharing the parameters' data. Its ``_metadata`` attribute maps
        each module's prefix (``""``, ``"0"``, ``"fc"``) to ``{"version": module._version}``,
        which ``load_state_dict`` hands back to each module as ``local_metadata``."""
        if destination is None:
            destination = _OrderedDict()
            destination._metadata = _OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif hook_result is not None:
                destination = hook_result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Run the load pre-hooks, then copy this module's own tensors (in place, so
        optimizers keep working) from ``state_dict``, recording missing and unexpected
        keys and error messages in the lists. Layers override it to convert old
        checkpoints (``local_metadata["version"]``), as BatchNorm does."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in (*self._parameters.items(), *persistent_buffers.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            error = self._load_one(name, param, key, state_dict[key], assign)
            if error is not None:
                error_msgs.append(error)
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    first, dot, _ = key[len(prefix):].partition(".")
                    if first not in (self._modules if dot else local_state):
                        unexpected_keys.append(key)

    def _load_one(self, name, param, key, input_param, assign):
        """Load ``input_param`` into the parameter or buffer ``name``; the error message
        for ``error_msgs``, or None."""
        if not isinstance(input_param, _Tensor):
            return (f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}")
        if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
            input_param = input_param[0]        # a 0.3-era checkpoint kept scalars as [x]
        if input_param.shape != param.shape:
            return (f"size mismatch for {key}: copying a param with shape {input_param.shape!r} from "
                    f"checkpoint, the shape in current model is {param.shape!r}.")
        try:
            with _no_grad():
                if not assign:
                    param.copy_(input_param)
                    return None
                if isinstance(param, _Parameter):
                    if isinstance(input_param, _Parameter):
                        input_param.requires_grad_(param.requires_grad)
                    else:
                        input_param = _Parameter(input_param, requires_grad=param.requires_grad)
                setattr(self, name, input_param)
        except Exception as ex:
            return (f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{param.size()!r} and whose dimensions in the checkpoint are "
                    f"{input_param.size()!r}, an exception occurred : {ex.args}.")
        return None

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values into the parameters and buffers of this module and its children
        (in place, so optimizers keep working; with ``assign``, the checkpoint's tensors
        become the parameters). Returns ``_IncompatibleKeys(missing_keys,
        unexpected_keys)``; with ``strict`` a mismatch raises PyTorch's ``RuntimeError``,
        after every module was loaded and every hook ran."""
        if not isinstance(state_dict, _Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = _OrderedDict(state_dict)      # a copy the hooks may change
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                        "to return new values, if incompatible_keys need to be modified, it should be "
                        "done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

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
        """``module(*args, **kwargs)``: PyTorch's ``_call_impl`` (and its ``inner``), one
        named step per line, in the order of the module docstring. ``call`` carries the
        arguments and result as the hooks replace them, so the always_call hooks see
        them after an exception too."""
        forward_call = self.forward
        if not self._has_call_hooks():
            return forward_call(*args, **kwargs)
        call = _HookedCall(args, kwargs)
        try:
            # Chosen before the pre-hooks run: one that registers a backward hook acts next call.
            full_backward_hooks, non_full_backward_hooks, backward_pre_hooks = self._backward_hooks_of_call()
            self._run_forward_pre_hooks(call)
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = _BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                call.args = bw_hook.setup_input_hook(call.args)
            call.result = forward_call(*call.args, **call.kwargs)
            self._run_forward_hooks(call)
            if bw_hook:
                call.result = self._setup_output_hook(bw_hook, call.result)
            if non_full_backward_hooks:
                self._register_non_full_backward_hooks(non_full_backward_hooks, call)
            return call.result
        except Exception:
            self._run_always_called_hooks_after_error(call)
            raise

    def _has_call_hooks(self):
        """Whether a call has any hook to run (without one, it is just ``forward``)."""
        return bool(self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                    or self._forward_pre_hooks or _global_backward_pre_hooks
                    or _global_backward_hooks or _global_forward_hooks or _global_forward_pre_hooks)

    def _backward_hooks_of_call(self):
        """``(full backward hooks, non-full backward hooks, backward pre-hooks)``, global
        ones first, as lists taken now."""
        full_backward_hooks, non_full_backward_hooks, backward_pre_hooks = [], [], []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            backward_pre_hooks = self._get_backward_pre_hooks()
        if self._backward_hooks or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
        return full_backward_hooks, non_full_backward_hooks, backward_pre_hooks

    def _run_forward_pre_hooks(self, call):
        """Global forward pre-hooks, then the module's own; each may replace ``call.args``
        (and, registered ``with_kwargs``, ``call.kwargs``)."""
        if not (_global_forward_pre_hooks or self._forward_pre_hooks):
            return
        # A tuple built before the first call: the snapshot (s57).
        for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                args_kwargs_result = hook(self, call.args, call.kwargs)
                if args_kwargs_result is not None:
                    if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                        call.args, call.kwargs = args_kwargs_result
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {args_kwargs_result}.")
            else:
                args_result = hook(self, call.args)
                if args_result is not None:
                    if not isinstance(args_result, tuple):
                        args_result = (args_result,)
                    call.args = args_result

    def _run_forward_hooks(self, call):
        """Global forward hooks, then the module's own; each may replace ``call.result``.
        The always_call ones that ran are noted, so that an error later does not run them
        again."""
        if not (_global_forward_hooks or self._forward_hooks):
            return
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                call.always_called_hooks_run.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                hook_result = hook(self, call.args, call.kwargs, call.result)
            else:
                hook_result = hook(self, call.args, call.result)
            if hook_result is not None:
                call.result = hook_result

    @staticmethod
    def _setup_output_hook(bw_hook, result):
        """The outputs passed through the full backward hooks' identity node."""
        if not isinstance(result, (_Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {type(result)}")
        return bw_hook.setup_output_hook(result)

    def _register_non_full_backward_hooks(self, hooks, call):
        """The deprecated backward hooks become post-hooks of the node that made the first
        output tensor (see :meth:`register_backward_hook`)."""
        var = call.result
        while not isinstance(var, _Tensor):
            if isinstance(var, dict):
                var = next(v for v in var.values() if isinstance(v, _Tensor))
            else:
                var = var[0]
        grad_fn = var.grad_fn
        if grad_fn is not None:
            for hook in hooks:
                grad_fn.register_hook(_WrappedHook(hook, self))
            self._maybe_warn_non_full_backward_hook(call.args, call.result, grad_fn)

    def _run_always_called_hooks_after_error(self, call):
        """The always_call forward hooks that did not run yet, global first (the two
        loops of PyTorch's ``except`` clause). As in PyTorch, a global one gets no kwargs
        here, even when registered with_kwargs."""
        self._run_always_called(call, _global_forward_hooks, _global_forward_hooks_always_called, (),
                                "global module")
        self._run_always_called(call, self._forward_hooks, self._forward_hooks_always_called,
                                self._forward_hooks_with_kwargs, "module")

    def _run_always_called(self, call, hooks, always_called, with_kwargs, whose):
        """Run the always_call hooks of ``hooks`` that did not run yet; one that raises is
        reported in a warning and skipped."""
        for hook_id, hook in hooks.items():
            if hook_id in always_called and hook_id not in call.always_called_hooks_run:
                try:
                    if hook_id in with_kwargs:
                        hook_result = hook(self, call.args, call.kwargs, call.result)
                    else:
                        hook_result = hook(self, call.args, call.result)
                    if hook_result is not None:
                        call.result = hook_result
                except Exception as e:
                    warnings.warn(f"{whose} forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}")

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
        # A module pickled before a hook level existed gets its empty dicts, as in PyTorch.
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            self.__dict__.setdefault(name, _OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)


def _typename(obj):
    if isinstance(obj, _Tensor):
        return obj.type()
    return type(obj).__module__ + "." + type(obj).__qualname__ \
        if type(obj).__module__ not in ("builtins",) else type(obj).__name__
