"""``ModuleTracker``: which modules are running now, forward or backward.

PyTorch counterpart: ``torch/utils/module_tracker.py``, and it works the same way: global
module forward pre- and post-hooks add and remove a module's name from ``parents``; in
backward, a multi-grad hook on the module's outputs adds it back, and one on its inputs
removes it (a final callback of the pass resets ``parents`` to ``{"Global"}``).
``FlopCounterMode`` uses it to break its counts down by module.
"""
import weakref

from .. import _tensor_class
from ..autograd import graph as _graph, graph_task as _graph_task
from ..nn.modules import module as _module

__all__ = ["ModuleTracker"]


def _tensors_requiring_grad(value):
    """The tensors requiring grad in a module's arguments or output (tuples, lists, dicts)."""
    if isinstance(value, _tensor_class.Tensor):
        return [value] if value.requires_grad else []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors_requiring_grad(item)]
    return []


class ModuleTracker:
    """``with ModuleTracker() as tracker:``; ``tracker.parents`` is the set of the fully
    qualified names (``Sequential.0``) of the modules running now, always with ``"Global"``;
    ``tracker.is_bw`` tells whether a backward pass is running."""

    def __init__(self):
        self.parents = {"Global"}
        self._known_modules = weakref.WeakKeyDictionary()
        self._seen_modules = weakref.WeakSet()
        self._has_callback = False
        self._hooks = []

    @property
    def is_bw(self):
        return _graph_task.current_graph_task_id() != -1

    def _maybe_set_engine_callback(self):
        if self._has_callback:
            return

        def callback():
            self.parents = {"Global"}
            self._has_callback = False

        _graph_task.queue_callback(callback)
        self._has_callback = True

    def _get_mod_name(self, mod):
        if mod not in self._known_modules:
            self._known_modules[mod] = type(mod).__name__
        mod_name = self._known_modules[mod]
        if mod not in self._seen_modules:
            for name, submod in mod.named_children():
                self._known_modules[submod] = f"{mod_name}.{name}"
                self._get_mod_name(submod)
            self._seen_modules.add(mod)
        return mod_name

    def _get_append_fn(self, name, is_bw):
        def fn(*args):
            if is_bw:
                self._maybe_set_engine_callback()
            self.parents.add(name)
        return fn

    def _get_pop_fn(self, name):
        def fn(*args):
            self.parents.discard(name)
        return fn

    def _fw_pre_hook(self, mod, input):
        name = self._get_mod_name(mod)
        self._get_append_fn(name, False)()
        tensors = _tensors_requiring_grad(input)
        if tensors:
            self._hooks.append(_graph.register_multi_grad_hook(tensors, self._get_pop_fn(name)))

    def _fw_post_hook(self, mod, input, output):
        name = self._get_mod_name(mod)
        self._get_pop_fn(name)()
        tensors = _tensors_requiring_grad(output)
        if tensors:
            self._hooks.append(_graph.register_multi_grad_hook(tensors, self._get_append_fn(name, True)))

    def __enter__(self):
        self._fw_pre_handle = _module.register_module_forward_pre_hook(self._fw_pre_hook)
        self._fw_post_handle = _module.register_module_forward_hook(self._fw_post_hook)
        return self

    def __exit__(self, *args):
        self._fw_pre_handle.remove()
        self._fw_post_handle.remove()
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()
