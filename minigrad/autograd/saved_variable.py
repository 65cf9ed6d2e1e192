"""Saved values: what a node keeps for its backward, and the saved-tensor hooks.

PyTorch counterparts: ``torch/csrc/autograd/saved_variable.cpp`` (``SavedVariable``, seen
from Python as ``torch._C._autograd.SavedTensor``) and ``torch/autograd/graph.py``
(``saved_tensors_hooks``, ``disable_saved_tensors_hooks``, ``save_on_cpu``), which
``minigrad.autograd.graph`` re-exports, as PyTorch's module holds them.

A forward op saves its inputs or outputs in :class:`SavedTensor` objects. Without hooks
the value is kept and its version checked when backward unpacks it. With a
``(pack, unpack)`` pair (the innermost ``saved_tensors_hooks`` of this thread when the
value is saved, or one given to ``SavedTensor.register_hooks``), ``pack`` runs once at
save time and ``unpack`` on every use, and no version check is made.
"""
import contextlib
import re
import threading
import weakref

from .. import _tensor_class, grad_mode
from ..dtypes import from_numpy_dtype as _from_numpy_dtype
from .anomaly_mode import is_anomaly_enabled as _is_anomaly_enabled

__all__ = ["SavedTensor", "saved_tensors_hooks", "disable_saved_tensors_hooks", "save_on_cpu",
           "current_saved_tensors_hooks"]

_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)




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
        self._hooked = self._freed = False
        self._is_none = value is None
        self._is_output = is_output
        self._tensor = self._data = self._source = self._grad_fn = self._grad_acc = None
        if value is None:
            return
        version_counter = value._version_counter
        if grad_mode.is_inference_counter(version_counter):
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                "inference mode in computation tracked by autograd. To work around this, you can make "
                "a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` "
                "instead of `torch.inference_mode()`.")
        grad_fn = value.grad_fn
        if not is_output and grad_fn is not None:
            # A saved non-leaf input: remembered (weakly) to notice a later detach_().
            self._source = weakref.ref(value)
        # Its place in the graph, which a tensor rebuilt from what an unpack hook returns
        # gets back (PyTorch's save_metadata): an input's grad_fn (held strongly, as
        # PyTorch's grad_fn_; it is upstream of the saving node, so no cycle), a leaf's
        # AccumulateGrad (weakly, as the leaf itself does); an output's grad_fn is the
        # saving node, passed to unpack.
        if not is_output:
            self._grad_fn = grad_fn
            if grad_fn is None:
                self._grad_acc = value._grad_accumulator
        self._saved_version = version_counter[0]
        self._version_counter = version_counter
        self._output_nr = value._output_nr
        self._requires_grad = value._requires_grad
        hooks = current_saved_tensors_hooks()
        if hooks is not None and value._python_scalar is None:     # wrapped numbers are never packed
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
        if self._is_none:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if self._freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if self._hooked:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time.")
        data = self._tensor._array if self._tensor is not None else self._data
        alias = _tensor_class.Tensor._wrap(data, version_counter=self._version_counter)
        self._pack_with(pack_hook, unpack_hook, alias)

    @property
    def data(self):
        """``SavedTensor.data``: what is stored, without the version check or unpack hook:
        the packed value when hooks packed it, a saved input itself, a saved output's data
        (no ``grad_fn``: keeping the saving node would make a cycle), None once freed."""
        if self._hooked:
            return self._packed
        if self._data is not None:
            return _tensor_class.Tensor._wrap(self._data, version_counter=self._version_counter)
        return self._tensor

    def free(self):
        if self._is_none:           # nothing to free; it keeps saying "None" (see NONE)
            return
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
            raise RuntimeError(_FREED_MESSAGE)
        if for_backward and self._source is not None:
            source = self._source()
            if source is not None and source.grad_fn is None:
                raise RuntimeError(
                    "Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_().This is not supported, please use out-of-place `.detach()` instead")
        if self._hooked:
            out = self._unpack(self._packed)
            if not isinstance(out, _tensor_class.Tensor):
                kind = type(out)
                name = (kind.__name__ if kind.__module__ == "builtins"
                        else f"{kind.__module__}.{kind.__qualname__}")
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
        out = _tensor_class.Tensor._wrap(data, version_counter=version_counter)
        if self._requires_grad:
            if self._is_output:
                if node is not None:
                    out.grad_fn, out._output_nr = node, self._output_nr
            elif self._grad_fn is not None:
                out.grad_fn, out._output_nr = self._grad_fn, self._output_nr
            elif self._grad_acc is not None:
                out._grad_accumulator = self._grad_acc
            out._requires_grad = True      # (it was a float tensor in the graph: no setter checks)
        return out

    def _raise_version_error(self, node):
        array = self._data if self._is_output else self._tensor._array
        producer = node if self._is_output else self._tensor.grad_fn
        where = "" if producer is None else (
            f", which is output {self._output_nr} of {re.sub(r'Backward[0-9]*$', '', producer.name())},")
        if _is_anomaly_enabled():
            hint = ("Hint: the backtrace further above shows the operation that failed to compute "
                    "its gradient. The variable in question was changed in there or anywhere "
                    "later. Good luck!")
        else:
            hint = ("Hint: enable anomaly detection to find the operation that failed to compute "
                    "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{_from_numpy_dtype(array.dtype).tensor_type} "
            f"{list(array.shape)}]{where} "
            f"is at version {self._version_counter[0]}; expected version {self._saved_version} "
            f"instead. {hint}")


# The value every node shows for a saved name whose input needs no gradient (mul saves
# ``other`` only for ``self``'s gradient): one shared instance, since it holds nothing,
# is never freed and refuses hooks, as PyTorch's undefined SavedVariable does.
SavedTensor.NONE = SavedTensor(None)


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
        if not (callable(self.pack_hook) and callable(self.unpack_hook)):
            # PyTorch's C++ binding refuses them here, on entering (not when made).
            raise TypeError(
                "_push_saved_tensors_default_hooks(): incompatible function arguments. The following "
                "argument types are supported:\n    1. (arg0: collections.abc.Callable, arg1: "
                f"collections.abc.Callable) -> None\n\nInvoked with: {self.pack_hook!r}, "
                f"{self.unpack_hook!r}")
        _saved_hooks_state.stack.append((self.pack_hook, self.unpack_hook))
        # (``with ... as m`` gives None, as in PyTorch)

    def __exit__(self, *exc):
        _saved_hooks_state.stack.pop()


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


class save_on_cpu(saved_tensors_hooks):
    """``torch.autograd.graph.save_on_cpu``: on this CPU-only engine there is no device
    to move from, so (as PyTorch does for CPU tensors) pack and unpack keep the tensor."""

    def __init__(self, pin_memory=False, device_type="cpu"):
        super().__init__(lambda t: t, lambda t: t)
