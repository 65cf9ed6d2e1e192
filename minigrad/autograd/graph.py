"""The backward graph: nodes, their hooks, saved values and graph-level hook helpers.

PyTorch counterparts: ``torch/autograd/graph.py`` (``Node``, ``saved_tensors_hooks``,
``register_multi_grad_hook``), ``torch/csrc/autograd/function.h`` (a node's four hook
lists), ``saved_variable.cpp`` (saved values), ``accumulate_grad.cpp``.

A :class:`Node` is one backward function. Its *inputs* are the gradients w.r.t. the
forward op's outputs (``grad_outputs``); its *outputs* are gradients w.r.t. the forward
op's inputs (``grad_inputs``), one per entry of ``next_functions``.

Each node keeps its hooks in four places, because they fire under different conditions
(PyTorch's NOTE [Hooks ordering]):

1. ``_tensor_pre_hooks``: one entry per output tensor that got ``register_hook``
   (in the order each tensor got its *first* hook); they run whenever the engine
   *visits* the node, even if it only captures a gradient for ``autograd.grad``;
2. ``_retains_grad_hooks``: the ``retain_grad`` hooks, run after every tensor hook so
   ``.grad`` sees the fully hooked gradient;
3. ``_pre_hooks`` (``register_prehook``): only when the node executes;
4. ``_post_hooks`` (``register_hook``): after the node ran.
"""
import functools
import itertools
import sys
import threading
import weakref
from collections import OrderedDict as _OrderedDict, namedtuple as _namedtuple

import numpy as np

from .. import _tensor_class, grad_mode
from ..utils.hooks import RemovableHandle as _RemovableHandle, add_hook as _add_hook
from ._names import hook_name as _hook_name
from .anomaly_mode import _AnomalyMode, store_stack as _store_stack
from .graph_task import (current_graph_task_id as _current_graph_task_id,
                         will_engine_execute_node as _will_engine_execute_node)
from .saved_variable import (SavedTensor, current_saved_tensors_hooks, disable_saved_tensors_hooks,
                             save_on_cpu, saved_tensors_hooks)

__all__ = [
    "Node", "AccumulateGrad", "SavedTensor", "saved_tensors_hooks", "save_on_cpu",
    "disable_saved_tensors_hooks", "register_multi_grad_hook", "GradientEdge", "get_gradient_edge",
    "allow_mutation_on_saved_tensors", "current_saved_tensors_hooks",
    # what the engine reads from here
    "ACCUMULATE_GRAD_SEQUENCE_NR", "ENGINE_REFS_TO_INCOMING_GRAD", "accumulate_into_grad",
    "check_node_hook_result", "check_tensor_hook_result", "gradient_edge",
]

ACCUMULATE_GRAD_SEQUENCE_NR = 2 ** 64 - 1      # UINT64_MAX: a ready leaf always runs next
# Numbers every new node in creation order: PyTorch's ``at::sequence_number``, which is per
# thread; this one is shared by all threads.
_next_sequence_nr = itertools.count()


def check_tensor_hook_result(hook, old, new):
    """PyTorch's ``check_single_result``: what a tensor or node hook may put in a slot."""
    if new is None:
        return
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, _tensor_class.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{_hook_name(hook, '<unknown>')}' has changed the type of value "
            f"(was {old.type()} got {new.type()})")
    if new.shape != old.shape:
        raise RuntimeError(
            f"hook '{_hook_name(hook, '<unknown>')}' has changed the size of value")


def check_node_hook_result(hook, old, new):
    """PyTorch's ``check_result``: a node hook returns a tuple of the same length."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{_hook_name(hook, '<unknown>')}' has returned an incorrect number of values "
            f"(got {len(new)}, but expected {len(old)})")
    for o, n in zip(old, new):
        check_tensor_hook_result(hook, o, n)


class Node:
    """``torch.autograd.graph.Node``: the type of every ``grad_fn``.

    Call ``node(*grad_outputs)`` to run its backward formula directly: as in PyTorch
    that runs no hooks and no engine validation (broadcast operands get un-reduced
    gradients).
    """

    _name = None            # subclasses set PyTorch's name, e.g. "MulBackward0"
    # The hook containers start as class-level "none yet" and are created on first
    # registration: most nodes never get a hook, and nodes are made on every op.
    _tensor_pre_hooks = ()           # [(OrderedDict of hooks, output_nr)]
    _retains_grad_hooks = None       # {output_nr: weakref to the tensor}
    _pre_hooks = None                # OrderedDict
    _post_hooks = None               # OrderedDict
    _metadata = None

    def __init__(self, next_functions=(), sequence_nr=None):
        self.next_functions = tuple(next_functions)
        self._seq = next(_next_sequence_nr) if sequence_nr is None else sequence_nr
        self._input_metadata = []        # (shape, numpy dtype) of each forward output
        self._stored = {}                # PyTorch attribute name -> SavedTensor (``_saved_<name>``)
        if _AnomalyMode.enabled:         # the forward call's stack, for the engine's warning
            _store_stack(self)

    # --- introspection -----------------------------------------------------------
    def name(self):
        """PyTorch's node name, e.g. ``MulBackward0`` or ``torch::autograd::AccumulateGrad``."""
        return self._name or type(self).__name__

    def _sequence_nr(self):
        return self._seq

    @property
    def metadata(self):
        """A dict kept with the node (the same object on every access)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __getattr__(self, attr):
        # _saved_<name> unpacks a saved value; _raw_saved_<name> is the SavedTensor itself.
        saved = self.__dict__.get("_stored")
        if saved is not None:
            if attr.startswith("_raw_saved_") and attr[11:] in saved:
                return saved[attr[11:]]
            if attr.startswith("_saved_") and attr[7:] in saved:
                return saved[attr[7:]].unpack(self)
        raise AttributeError(f"'{self.name()}' object has no attribute '{attr}'")

    def __dir__(self):
        names = set(super().__dir__())
        for key in self._stored:
            names.update(("_saved_" + key, "_raw_saved_" + key))
        return sorted(names)

    # --- running -------------------------------------------------------------------
    def apply(self, grad_outputs, needs_input_grad):
        """Compute the gradients w.r.t. the forward inputs (one per next edge).

        ``needs_input_grad[i]`` says whether output ``i`` is wanted (a false entry may
        be returned as None). Subclasses implement this."""
        raise NotImplementedError

    def _full_needs_input_grad(self):
        """``needs_input_grad`` when the whole graph runs: every edge that leads to a node."""
        return tuple([nxt is not None for nxt, _ in self.next_functions])

    def __call__(self, *grad_outputs):
        expected = len(self._input_metadata) or 1
        if len(grad_outputs) != expected:
            raise TypeError(f"expected {expected} arguments, got {len(grad_outputs)} instead")
        result = tuple(self.apply(tuple(grad_outputs), self._full_needs_input_grad()))
        return result[0] if len(result) == 1 else result

    def release_variables(self):
        """Free saved values (the engine calls this after the node ran, unless retain_graph)."""
        for saved in self._stored.values():
            saved.free()

    # --- hooks -----------------------------------------------------------------------
    def register_prehook(self, hook):
        """``Node.register_prehook(hook)``: ``hook(grad_outputs) -> tuple | None``.

        Runs only when the node executes, after the tensor hooks and retain_grad. A
        returned tuple replaces ``grad_outputs``; a None element drops that gradient."""
        if self._pre_hooks is None:
            self._pre_hooks = _OrderedDict()
        return _add_hook(self._pre_hooks, hook)

    def register_hook(self, hook):
        """``Node.register_hook(hook)``: ``hook(grad_inputs, grad_outputs) -> tuple | None``.

        Runs after the node and the engine's output validation. A returned tuple replaces
        ``grad_inputs`` for the next nodes; a None element drops that gradient."""
        if self._post_hooks is None:
            self._post_hooks = _OrderedDict()
        return _add_hook(self._post_hooks, hook)

    def _register_hook_dict(self, tensor):
        """Install one tensor-pre-hook entry iterating ``tensor._backward_hooks``."""
        self._tensor_pre_hooks = [*self._tensor_pre_hooks, (tensor._backward_hooks, tensor._output_nr)]

    def _set_retains_grad_hook(self, output_nr, tensor):
        """``retain_grad``'s hook for one output: store ``.grad`` on ``tensor``."""
        if self._retains_grad_hooks is None:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = weakref.ref(tensor)

    def _drop_retains_grad_hook(self, output_nr):
        if self._retains_grad_hooks:
            self._retains_grad_hooks.pop(output_nr, None)

    def tensor_pre_hooks(self):
        """The ``(hooks, output_nr)`` entries the engine runs when visiting this node."""
        return self._tensor_pre_hooks


class AccumulateGrad(Node):
    """``torch::autograd::AccumulateGrad``: the node behind a leaf tensor.

    It adds the incoming gradient into ``variable.grad`` (in place after the first
    time), then runs the leaf's post-accumulate-grad hooks. The leaf references it only
    weakly (a new one is made when the old one is gone), so node hooks on it vanish
    with it, while the leaf's own tensor hooks live on the leaf and are read lazily.
    """

    _name = "torch::autograd::AccumulateGrad"
    __module__ = "builtins"         # so it prints <AccumulateGrad object at 0x...>, as PyTorch's C++ type

    def __init__(self, variable):
        super().__init__((), ACCUMULATE_GRAD_SEQUENCE_NR)
        self.variable = variable
        self._input_metadata = [(variable._array.shape, variable._array.dtype)]

    def tensor_pre_hooks(self):
        hooks = self.variable._backward_hooks
        return [(hooks, 0)] if hooks is not None else ()

    def apply(self, grad_outputs, needs_input_grad=(), run_hooks=True):
        accumulate_into_grad(self.variable, grad_outputs, run_hooks)
        return ()


_NO_EDGE = (None, 0)


def gradient_edge(tensor):
    """The edge ``tensor``'s gradient flows back through, as ``(node, input_nr)``: its
    ``grad_fn`` and output number, or for a leaf its ``AccumulateGrad`` (made if it does
    not exist yet) and 0, or ``(None, 0)`` when it does not require grad. The edge a
    tensor adds to the ``next_functions`` of a node made from it (PyTorch's
    ``impl::gradient_edge``)."""
    if not tensor._requires_grad:
        return _NO_EDGE
    # (``grad_fn`` is a property that only a view can change: read the slot otherwise)
    grad_fn = tensor._grad_fn if tensor._attr_version is None else tensor.grad_fn
    if grad_fn is not None:
        return (grad_fn, tensor._output_nr)
    return (tensor._get_grad_accumulator(), 0)


class GradientEdge(_namedtuple("GradientEdge", "node output_nr ownership_token", defaults=(None,))):
    """``torch.autograd.graph.GradientEdge``. (PyTorch's ``ownership_token`` keeps a C++
    graph alive; minigrad's nodes are Python objects, so it stays None.)"""


def get_gradient_edge(tensor):
    """``torch.autograd.graph.get_gradient_edge(tensor)``: :func:`gradient_edge` as a
    :class:`GradientEdge`, for a tensor that requires grad."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor "
                           "that does not require gradients")
    return GradientEdge(*gradient_edge(tensor))


def _use_count(holder):
    """How many references ``holder[0]`` has, counting the ones this call adds."""
    return sys.getrefcount(holder[0])


# The count _use_count gives for an object referenced by nothing but its holder. It is
# measured, not written down, because what a call adds differs between Python versions.
_HELD_ONLY_BY_HOLDER = _use_count((object(),))

# The engine's own references to the gradient AccumulateGrad receives: the node's input
# buffer (a list) and the ``grad_outputs`` tuple the engine keeps for the node's post
# hooks and its "apply" event. PyTorch counts 1, plus 1 when the node has post hooks
# (``num_expected_refs`` in accumulate_grad.cpp); minigrad always keeps the tuple.
ENGINE_REFS_TO_INCOMING_GRAD = 2


def _non_overlapping_and_dense(a):
    """numpy's view of ``Tensor.is_non_overlapping_and_dense()``: the elements fill one
    block of memory, in some order of the dimensions."""
    expected = 1
    for stride, size in sorted((s // a.itemsize, n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _writable_alias(array):
    """A writable view of ``array``'s memory, or None when that memory is read-only.

    numpy marks every view of a broadcast (``expand``'s result, what ``sum`` sends back)
    read-only, although its memory is not. PyTorch's expanded tensors are writable, so
    AccumulateGrad steals a view of one (``stack([b, a]).sum(0)`` sends each leaf a row
    of one expanded buffer, and both ``.grad`` then share that memory)."""
    alias = array.view()
    try:
        alias.flags.writeable = True
    except ValueError:                   # numpy refuses: the memory itself is read-only
        return None
    return alias


def _obeys_layout_contract(grad, variable):
    """PyTorch's ``obeys_layout_contract``: ``.grad`` is laid out like its tensor (same
    strides on every dimension larger than 1), or C-contiguous when the tensor is not
    dense. An expanded gradient (stride 0, what ``sum`` sends back) does not qualify."""
    g, v = grad._array, variable._array
    if g.dtype != v.dtype or g.shape != v.shape:
        return False
    if g.flags.c_contiguous and v.flags.c_contiguous:      # the usual case, quickly
        return True
    if not _non_overlapping_and_dense(v):
        return g.flags.c_contiguous
    return all(gs == vs for gs, vs, n in zip(g.strides, v.strides, v.shape) if n != 1)


def accumulate_into_grad(variable, grad_outputs, run_hooks=True):
    """AccumulateGrad's work (PyTorch's ``AccumulateGrad::accumulateGrad``), then the
    leaf's post-accumulate-grad hooks. ``grad_outputs[0]`` is the incoming gradient.

    When ``.grad`` is still None:

    - **steal**: ``.grad`` becomes the incoming buffer itself (a detached alias of it: a
      new Tensor over the same array and version counter, as ``new_grad.detach()``), with
      no copy, when grad mode is off (no ``create_graph``), nothing but the engine refers
      to the incoming Tensor object, it is laid out like the leaf and its memory is
      writable (a row of a broadcast is: see :func:`_writable_alias`; two leaves can
      then share one buffer, as in PyTorch). "Nothing but the engine" is checked with
      ``sys.getrefcount``: at most :data:`ENGINE_REFS_TO_INCOMING_GRAD` references (the
      input buffer and the ``grad_outputs`` tuple) besides the call's own. So a tensor a
      hook returned and forgot becomes ``.grad``'s storage, while a gradient the caller
      still holds (``y.backward(g)`` passing ``g`` through an addition, a hook that kept
      ``g`` in a list, an ``autograd.grad`` capture, an event recorded by
      ``record_events`` or a stepped pass) is copied, as PyTorch counts C++ references;
    - otherwise **copy** it (laid out like the leaf); under ``create_graph`` the copy is
      recorded (``CopyBackwards``) so ``.grad`` has a graph.

    Later gradients are added in place, or out of place when grad mode is on
    (``create_graph``), which gives ``.grad`` a graph. Then the post-accumulate-grad hooks
    run, unless ``run_hooks`` is false (an engine written in lesson 10 calls them itself:
    ``engine.call_node``).
    """
    # References to the incoming Tensor object (the engine's included), counted before
    # this function binds one of its own.
    use_count = _use_count(grad_outputs) - _HELD_ONLY_BY_HOLDER + 1
    grad = grad_outputs[0]
    if grad is not None:
        if variable._grad is None:       # (the slot: .grad's getter warns about non-leaves)
            if grad_mode.is_grad_enabled() and grad.requires_grad:     # create_graph: CopyBackwards
                variable._grad = _tensor_class.Tensor._wrap(np.zeros_like(variable._array)).copy_(grad)
            elif (not grad_mode.is_grad_enabled() and use_count <= ENGINE_REFS_TO_INCOMING_GRAD
                    and _obeys_layout_contract(grad, variable)
                    and (stolen := _writable_alias(grad._array)) is not None):
                variable._grad = _tensor_class.Tensor._wrap(stolen, grad._version_counter)
            else:                       # a copy laid out like the leaf (``clone_obey_contract``)
                copy = np.empty_like(variable._array)
                np.copyto(copy, grad._array)
                variable._grad = _tensor_class.Tensor._wrap(copy)
        elif grad_mode.is_grad_enabled():
            variable._grad = variable._grad + grad
        else:
            variable._grad._array += grad._array
        del grad
    hooks = variable._post_accumulate_grad_hooks if run_hooks else None
    if hooks is not None:
        bad = False
        for hook in list(hooks.values()):
            # As PyTorch's _call_hooks: returning the tensor itself (``p.sub_(...)``
            # returns p) counts as "unchanged"; a non-tensor fails at once.
            result = hook(variable)
            if result is not None and result is not variable:
                if not isinstance(result, _tensor_class.Tensor):
                    raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
                bad = True
        if bad:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


# --------------------------------------------------------------------------------------
# Multi-tensor hooks
# --------------------------------------------------------------------------------------

class _MultiHandle(_RemovableHandle):
    """Removes every inner hook of a multi-grad hook. Like PyTorch's, it takes no id of
    its own (only its inner handles do)."""

    def __init__(self, handles):
        self.handles = tuple(handles)

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """``torch.autograd.graph.register_multi_grad_hook(tensors, fn, mode="all")``.

    ``mode="all"``: ``fn(grads)`` runs once per backward pass, after the gradients of
    all the tensors the pass will reach were computed (None for the others).
    ``mode="any"``: ``fn(grad)`` runs once per pass, with the first gradient computed.
    Built, as in PyTorch, from ordinary tensor hooks that count per graph task.
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    lock = threading.Lock()
    tensors = tuple(tensors)

    if mode == "any":
        ran = {}

        def make_any_hook(_):
            @functools.wraps(fn)         # as in PyTorch: the hook reads as fn
            def inner(grad):
                task_id = _current_graph_task_id()
                with lock:
                    first = task_id not in ran
                    ran[task_id] = True
                if first:
                    fn(grad)
            return inner

        return _MultiHandle([t.register_hook(make_any_hook(i))
                             for i, t in enumerate(tensors) if t.requires_grad])

    grad_fns = [gradient_edge(t)[0] if t.requires_grad else None for t in tensors]
    assert all(g is not None for g in grad_fns), "Expected gradient function to be set"
    count, buffers = {}, {}
    nb_calls = [None]

    def make_all_hook(index):
        def inner_hook(grad):
            task_id = _current_graph_task_id()
            with lock:
                if task_id not in count:
                    nb_calls[0] = sum(_will_engine_execute_node(g) for g in grad_fns)
                    buffers[task_id] = [None] * len(tensors)
                    count[task_id] = 0
                buffers[task_id][index] = grad
                count[task_id] += 1
                done = count[task_id] == nb_calls[0]
                if done:
                    grads = buffers.pop(task_id)
                    del count[task_id]
            if done:
                fn(grads)
        return inner_hook

    return _MultiHandle([t.register_hook(make_all_hook(i)) for i, t in enumerate(tensors)])


from .allow_mutation import allow_mutation_on_saved_tensors  # noqa: E402 (it builds on the hooks above)
