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
import contextlib
import functools
import itertools
import re
import sys
import threading
import weakref
from collections import OrderedDict

import numpy as np

from .. import _tensor, grad_mode   # _tensor is read at call time (import cycle)
from ..dtypes import from_numpy_dtype
from ..utils.hooks import RemovableHandle
from .anomaly_mode import is_anomaly_enabled

__all__ = [
    "Node", "AccumulateGrad", "SavedTensor", "saved_tensors_hooks", "save_on_cpu",
    "disable_saved_tensors_hooks", "register_multi_grad_hook",
    "allow_mutation_on_saved_tensors",
]

ACCUMULATE_GRAD_SEQUENCE_NR = 2 ** 64 - 1      # UINT64_MAX: a ready leaf always runs next
_sequence_nr = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def _hook_name(hook):
    return getattr(hook, "__name__", "<unknown>")


def _type_string(t):
    return "torch." + t.dtype.tensor_type     # PyTorch's exact text, so traces compare


def check_tensor_hook_result(hook, old, new):
    """PyTorch's ``check_single_result``: what a tensor or node hook may put in a slot."""
    if new is None:
        return
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, _tensor.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value "
            f"(was {_type_string(old)} got {_type_string(new)})")
    if new.shape != old.shape:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the size of value")


def check_node_hook_result(hook, old, new):
    """PyTorch's ``check_result``: a node hook returns a tuple of the same length."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
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
        self._seq = next(_sequence_nr) if sequence_nr is None else sequence_nr
        self._input_metadata = []        # (shape, numpy dtype) of each forward output
        self._stored = {}                # PyTorch attribute name -> SavedTensor (``_saved_<name>``)

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

    def _default_needs(self):
        """Which outputs to compute when every next edge is wanted (cached)."""
        needs = self.__dict__.get("_needs")
        if needs is None:
            needs = self._needs = tuple([nxt is not None for nxt, _ in self.next_functions])
        return needs

    def __call__(self, *grad_outputs):
        expected = len(self._input_metadata) or 1
        if len(grad_outputs) != expected:
            raise TypeError(f"expected {expected} arguments, got {len(grad_outputs)} instead")
        result = tuple(self.apply(tuple(grad_outputs), self._default_needs()))
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
            self._pre_hooks = OrderedDict()
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = hook
        return handle

    def register_hook(self, hook):
        """``Node.register_hook(hook)``: ``hook(grad_inputs, grad_outputs) -> tuple | None``.

        Runs after the node and the engine's output validation. A returned tuple replaces
        ``grad_inputs`` for the next nodes; a None element drops that gradient."""
        if self._post_hooks is None:
            self._post_hooks = OrderedDict()
        handle = RemovableHandle(self._post_hooks)
        self._post_hooks[handle.id] = hook
        return handle

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


def _copy_like(array, like):
    """A copy of ``array`` with the memory layout of ``like`` (``clone_obey_contract``)."""
    out = np.empty_like(like)
    np.copyto(out, array)
    return out


def _obeys_layout_contract(grad, variable):
    """PyTorch's ``obeys_layout_contract``: ``.grad`` is laid out like its tensor (same
    strides on every dimension larger than 1), or C-contiguous when the tensor is not
    dense. An expanded gradient (stride 0, what ``sum`` sends back) does not qualify."""
    g, v = grad._array, variable._array
    if g.dtype != v.dtype or g.shape != v.shape:
        return False
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
      to the incoming Tensor object, and it is laid out like the leaf (and writable:
      numpy's broadcast views are read-only). "Nothing but the engine" is checked with
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
        if variable.grad is None:
            if grad_mode.is_grad_enabled():
                if grad.requires_grad:           # create_graph: keep the graph (CopyBackwards)
                    variable.grad = _tensor.Tensor._wrap(np.zeros_like(variable._array)).copy_(grad)
                else:
                    variable.grad = _tensor.Tensor._wrap(_copy_like(grad._array, variable._array))
            elif (use_count <= ENGINE_REFS_TO_INCOMING_GRAD
                    and grad._array.flags.writeable and _obeys_layout_contract(grad, variable)):
                variable.grad = _tensor.Tensor._wrap(grad._array, grad._version_counter)
            else:
                variable.grad = _tensor.Tensor._wrap(_copy_like(grad._array, variable._array))
        elif grad_mode.is_grad_enabled():
            variable.grad = variable.grad + grad
        else:
            variable.grad._array += grad._array
        del grad
    hooks = variable._post_accumulate_grad_hooks if run_hooks else None
    if hooks is not None:
        bad = False
        for hook in list(hooks.values()):
            # As PyTorch's _call_hooks: returning the tensor itself (``p.sub_(...)``
            # returns p) counts as "unchanged"; a non-tensor fails at once.
            result = hook(variable)
            if result is None or result is variable:
                continue
            if not isinstance(result, _tensor.Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
            bad = True
        if bad:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


# --------------------------------------------------------------------------------------
# Saved values and saved-tensor hooks
# --------------------------------------------------------------------------------------

class _SavedHooksState(threading.local):
    def __init__(self):
        self.stack = []                 # [(pack, unpack)], innermost last
        self.disabled_message = None


_saved_hooks_state = _SavedHooksState()


def current_saved_tensors_hooks():
    """The innermost ``(pack, unpack)`` pair of this thread, or None."""
    stack = _saved_hooks_state.stack
    return stack[-1] if stack else None


class SavedTensor:
    """``torch._C._autograd.SavedTensor``: one value a node saved for its backward.

    Without hooks an *input* is kept as the tensor itself and an *output* as its data
    (re-wrapped on access with ``grad_fn`` = the saving node, to avoid a reference
    cycle), and the version counter is checked on every unpack. With a hook pair (the
    innermost ``saved_tensors_hooks`` at save time, or ``register_hooks``), ``pack`` runs
    once and ``unpack`` on every access, and **no version check is made**.
    """

    __slots__ = ("_tensor", "_data", "_version_counter", "_requires_grad", "_is_output",
                 "_saved_version", "_output_nr", "_packed", "_unpack", "_hooked",
                 "_freed", "_is_none", "_source", "_grad_fn", "_grad_acc", "__weakref__")

    def __init__(self, value, is_output=False):
        self._hooked = False
        self._freed = False
        self._is_none = value is None
        self._is_output = is_output
        self._tensor = None
        self._data = None
        self._source = self._grad_fn = self._grad_acc = None
        if value is None:
            return
        if not is_output and value.grad_fn is not None:
            # A saved non-leaf input: remembered (weakly) to notice a later detach_().
            self._source = weakref.ref(value)
        # Its place in the graph, which a tensor rebuilt from what an unpack hook returns
        # gets back (PyTorch's save_metadata): an input's grad_fn (held strongly, as
        # PyTorch's grad_fn_; it is upstream of the saving node, so no cycle), a leaf's
        # AccumulateGrad (weakly, as the leaf itself does); an output's grad_fn is the
        # saving node, passed to unpack.
        if not is_output:
            self._grad_fn = value.grad_fn
            if value.grad_fn is None:
                self._grad_acc = value._grad_accumulator
        self._saved_version = value._version_counter[0]
        self._version_counter = value._version_counter
        self._output_nr = value._output_nr
        self._requires_grad = value.requires_grad
        hooks = current_saved_tensors_hooks()
        if hooks is not None and value._wrapped is None:     # wrapped numbers are never packed
            self._pack_with(hooks[0], hooks[1], value)
            # Packed at save time, it keeps its grad_fn (above): a later detach_() of
            # the input no longer matters, as in PyTorch.
            self._source = None
        elif is_output:
            self._data = value._array
        else:
            self._tensor = value

    def _pack_with(self, pack, unpack, tensor):
        version = tensor._version_counter[0]
        with grad_mode.no_grad():
            packed = pack(tensor)
        if tensor._version_counter[0] != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided "
                "as input to pack hook cannot be modified by in-place operations as this can "
                "lead to unexpected side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook.")
        self._packed, self._unpack, self._hooked = packed, unpack, True
        self._tensor = self._data = None

    def register_hooks(self, pack_hook, unpack_hook):
        """``SavedTensor.register_hooks(pack, unpack)``: give this one value its own pair.

        ``pack`` runs at once, on a detached alias; only one pair per value."""
        if self._freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if self._is_none:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if self._hooked:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time.")
        data = self._tensor._array if self._tensor is not None else self._data
        alias = _tensor.Tensor._wrap(data, version_counter=self._version_counter)
        self._pack_with(pack_hook, unpack_hook, alias)

    def free(self):
        self._freed = True
        self._tensor = self._data = None
        if self._hooked:
            self._packed = None

    def unpack(self, node=None, for_backward=False):
        """The saved tensor (``node`` is the node that saved it, for saved outputs).

        ``for_backward``: the unpack a backward formula makes. As in PyTorch it refuses a
        saved non-leaf input that was since detached in place (``detach_()`` dropped its
        grad_fn), while ``node._saved_<name>`` still shows it."""
        if self._is_none:
            return None
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        if for_backward and self._source is not None:
            source = self._source()
            if source is not None and source.grad_fn is None:
                raise RuntimeError(
                    "Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_().This is not supported, please use out-of-place `.detach()` instead")
        if self._hooked:
            out = self._unpack(self._packed)
            if not isinstance(out, _tensor.Tensor):
                kind = type(out)
                name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor "
                                f"but got result of type {name}")
            return self._rewrap(out._array, node, out._version_counter)
        if self._version_counter[0] != self._saved_version:
            self._raise_version_error(node)
        if not self._is_output:
            return self._tensor
        return self._rewrap(self._data, node, self._version_counter)

    def _rewrap(self, data, node, version_counter):
        """A new tensor over ``data`` standing where the saved one stood in the graph:
        a saved output gets the saving ``node`` as grad_fn, a saved non-leaf input its
        own grad_fn, a saved leaf shares the leaf's AccumulateGrad, so double backward
        through an unpacked value reaches the same nodes as through the original."""
        out = _tensor.Tensor._wrap(data, version_counter=version_counter)
        if self._requires_grad:
            if self._is_output:
                if node is not None:
                    out.grad_fn, out._output_nr = node, self._output_nr
            elif self._grad_fn is not None:
                out.grad_fn, out._output_nr = self._grad_fn, self._output_nr
            elif self._grad_acc is not None:
                out._grad_accumulator = self._grad_acc
            out.requires_grad = True
        return out

    def _raise_version_error(self, node):
        if self._is_output:
            producer = node
            shape = list(self._data.shape)
            dtype = self._data.dtype
        else:
            producer = self._tensor.grad_fn
            shape = list(self._tensor.shape)
            dtype = self._tensor._array.dtype
        where = ""
        if producer is not None:
            where = f", which is output {self._output_nr} of {re.sub(r'Backward[0-9]*$', '', producer.name())}"
        if is_anomaly_enabled():
            hint = ("Hint: the backtrace further above shows the operation that failed to compute "
                    "its gradient. The variable in question was changed in there or anywhere "
                    "later. Good luck!")
        else:
            hint = ("Hint: enable anomaly detection to find the operation that failed to compute "
                    "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{from_numpy_dtype(dtype).tensor_type} {shape}]{where}, "
            f"is at version {self._version_counter[0]}; expected version {self._saved_version} "
            f"instead. {hint}")


class saved_tensors_hooks(contextlib.ContextDecorator):
    """``torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)``.

    Pushes the pair on this thread's stack for the duration of the ``with`` block.
    Only the innermost pair applies to a value saved inside (no chaining), and the pair
    is stored with each saved value, so what is active at backward time does not matter.
    ``pack`` runs at save time under no_grad; ``unpack`` on every use.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = _saved_hooks_state.disabled_message
        if message is not None:
            raise RuntimeError(message)
        _saved_hooks_state.stack.append((self.pack_hook, self.unpack_hook))
        # (``with ... as m`` gives None, as in PyTorch)

    def __exit__(self, *exc):
        _saved_hooks_state.stack.pop()
        return False


class disable_saved_tensors_hooks(contextlib.ContextDecorator):
    """``torch.autograd.graph.disable_saved_tensors_hooks(error_message)``: inside, pushing
    saved-tensor hooks raises ``RuntimeError(error_message)``; entering while hooks are
    active raises it too."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _saved_hooks_state.stack:
            raise RuntimeError(self.error_message)
        self._previous = _saved_hooks_state.disabled_message
        _saved_hooks_state.disabled_message = self.error_message

    def __exit__(self, *exc):
        _saved_hooks_state.disabled_message = self._previous
        return False


class save_on_cpu(saved_tensors_hooks):
    """``torch.autograd.graph.save_on_cpu``: on this CPU-only engine there is no device
    to move from, so (as PyTorch does for CPU tensors) pack and unpack keep the tensor."""

    def __init__(self, pin_memory=False, device_type="cpu"):
        super().__init__(lambda t: t, lambda t: t)


# --------------------------------------------------------------------------------------
# Multi-tensor hooks
# --------------------------------------------------------------------------------------

class _MultiHandle(RemovableHandle):
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
    from . import engine
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
                task_id = engine.current_graph_task_id()
                with lock:
                    first = task_id not in ran
                    ran[task_id] = True
                if first:
                    fn(grad)
            return inner

        return _MultiHandle([t.register_hook(make_any_hook(i))
                             for i, t in enumerate(tensors) if t.requires_grad])

    grad_fns = [t.grad_fn if t.grad_fn is not None else t._get_grad_accumulator()
                for t in tensors]
    assert all(g is not None for g in grad_fns), "Expected gradient function to be set"
    count = {}
    buffers = {}
    nb_calls = [None]

    def make_all_hook(index):
        def inner_hook(grad):
            task_id = engine.current_graph_task_id()
            with lock:
                if task_id not in count:
                    nb_calls[0] = sum(engine.will_engine_execute_node(g) for g in grad_fns)
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
