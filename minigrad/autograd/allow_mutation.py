"""``torch.autograd.graph.allow_mutation_on_saved_tensors``: in-place writes to saved
tensors without the version-counter error.

PyTorch counterpart: ``torch/autograd/graph.py`` (built there from saved-tensor hooks
and a dispatch mode that sees every in-place op). minigrad builds it the same way from
its own parts: inside the context a pair of saved-tensor hooks keeps each saved tensor
by reference (``pack``), every in-place write on a tensor first asks the context to
copy any saved tensor sharing its storage (``Tensor._notify_inplace``), and ``unpack``
hands backward the copy when there is one, the tensor itself otherwise. Values saved
through hooks are not version-checked, so backward runs on the values as they were.
"""
import contextlib
import weakref

from .. import _tensor_class
from .saved_variable import saved_tensors_hooks as _saved_tensors_hooks

__all__ = ["allow_mutation_on_saved_tensors"]

_active = [None]        # the context that is open (process-wide, as in PyTorch)

# Callables that every in-place write on a tensor calls first, with the tensor written
# (``Tensor._notify_inplace``); an open block registers its ``before_write`` here.
_inplace_observers = []


def _storage_key(array):
    """Identity of the memory an array views (views of one buffer share it)."""
    while array.base is not None and hasattr(array.base, "base"):
        array = array.base
    return id(array)


class _Packed:
    """What a saved tensor is packed into: a reference to the tensor itself."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: the saved tensors by
    storage, and the copies taken before a write. Cleared when the block exits."""

    def __init__(self):
        self.saved = {}                              # storage key -> WeakSet of _Packed
        self.cloned = weakref.WeakKeyDictionary()    # _Packed -> the copy taken before a write

    def pack(self, tensor):
        packed = _Packed(tensor)
        self.saved.setdefault(_storage_key(tensor._array), weakref.WeakSet()).add(packed)
        return packed

    def unpack(self, packed):
        if _active[0] is not self:
            raise AssertionError(
                "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context "
                "in which the graph was originally recorded.")
        copy = self.cloned.get(packed)
        return copy if copy is not None else packed.tensor

    def before_write(self, tensor):
        """Called before ``tensor``'s memory is written in place: copy every saved tensor
        over the same memory that has no copy yet."""
        for packed in tuple(self.saved.get(_storage_key(tensor._array), ())):
            if packed not in self.cloned:
                self.cloned[packed] = _tensor_class.Tensor._wrap(packed.tensor._array.copy())

    def clear(self):
        self.saved.clear()
        self.cloned = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """``with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:``

    Inside, modifying a tensor saved for backward in place is allowed: the saved value is
    copied first, and backward uses the copy (the value as it was when saved). Run the
    forward and the backward inside the same block: backward after the block has exited
    raises an AssertionError, as in PyTorch. Blocks cannot be nested. In-place writes
    that bypass the Tensor API (an optimizer's update, ``nn.init``) are not seen."""
    if _active[0] is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    _inplace_observers.append(ctx.before_write)
    _active[0] = ctx
    try:
        with _saved_tensors_hooks(ctx.pack, ctx.unpack):
            yield ctx
    finally:
        _active[0] = None
        _inplace_observers.remove(ctx.before_write)
        ctx.clear()
