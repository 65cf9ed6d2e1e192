"""``LazyModuleMixin``: modules whose parameters take their shape from the first input.

PyTorch counterpart: ``torch/nn/modules/lazy.py``. A lazy module (``nn.LazyLinear(3)``)
starts with ``UninitializedParameter`` placeholders and a forward pre-hook,
``_infer_parameters``: on the first call it runs ``initialize_parameters(*args)`` (the
subclass materialises its parameters from the input's shape and initialises them), removes
itself and the load hook, and turns the module into its ``cls_to_become`` (``LazyLinear``
becomes ``Linear``). Loading a ``state_dict`` into a lazy module materialises the
placeholders with the loaded shapes first (``_lazy_load_hook``, a load pre-hook).
"""
import itertools

from ...grad_mode import no_grad as _no_grad
from ..parameter import is_lazy as _is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Put it first among a module's bases (``class LazyLinear(LazyModuleMixin, Linear)``)
    and define ``initialize_parameters(*args, **kwargs)``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """A placeholder is saved as itself (it has nothing to detach)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or _is_lazy(param) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or _is_lazy(buf) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """Materialise each placeholder that the state_dict has a real tensor for, with its
        shape, so that loading copies into it."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and _is_lazy(param) and not _is_lazy(state_dict[key]):
                with _no_grad():
                    param.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(_is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: shapes from the first input, then the module becomes its
        ``cls_to_become``, with neither hook left."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")
