"""Removable hook handles.

PyTorch counterpart: ``torch/utils/hooks.py``. Every ``register_*`` in minigrad
returns a :class:`RemovableHandle`. Hooks are kept in one ordered dict per owner,
keyed by the handle's id, so removing one is O(1), idempotent, and leaves the
others in order.
"""
import os
import sys
import weakref

__all__ = ["RemovableHandle", "add_hook"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _first_frame_outside_minigrad():
    """The ``stacklevel`` that makes a warning issued by the caller point at the first
    frame outside minigrad: the user's ``backward()`` line, where PyTorch's warnings
    from inside a backward pass point (its engine is C++, so it has no frames between)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


class RemovableHandle:
    """``torch.utils.hooks.RemovableHandle``: ``remove()`` deletes the hook from the
    dict(s) it was registered in; usable as a context manager (removes on exit).

    ``extra_dict`` names further dicts the same id lives in (the module keeps
    ``always_call`` and ``with_kwargs`` flags that way).

    Ids count up from 0 in the process, one per handle, in ``RemovableHandle.next_id``
    as in PyTorch (hook dicts print them: ``OrderedDict([(3, <function ...>)])``)."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        # hooks_dict is an OrderedDict: plain dicts cannot be weakly referenced.
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra = ()
        elif isinstance(extra_dict, dict):
            extra = (extra_dict,)
        else:
            extra = tuple(extra_dict)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __repr__(self):
        return f"<RemovableHandle id={self.id}>"


def add_hook(hooks_dict, hook, *, prepend=False, flags=()):
    """Put ``hook`` in ``hooks_dict`` under a new handle's id and return the handle:
    what every ``register_*`` does (PyTorch repeats these lines in each of them).

    ``prepend`` moves it to the front. ``flags`` are ``(flag_dict, on)`` pairs, the
    module's ``with_kwargs``/``always_call`` marks: the id goes in ``flag_dict`` when
    ``on``, and ``remove()`` clears it from every ``flag_dict``."""
    handle = RemovableHandle(hooks_dict, extra_dict=[flag_dict for flag_dict, _ in flags])
    hooks_dict[handle.id] = hook
    for flag_dict, on in flags:
        if on:
            flag_dict[handle.id] = True
    if prepend:
        hooks_dict.move_to_end(handle.id, last=False)
    return handle
