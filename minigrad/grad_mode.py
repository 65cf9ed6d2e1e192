"""Grad mode: whether ops record a graph.

PyTorch counterpart: ``torch/autograd/grad_mode.py``. Like PyTorch, the flag is
thread-local; ``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context
managers and as decorators, and always restore the previous mode, even on error.
"""
import functools
import threading

_state = threading.local()


def is_grad_enabled():
    """``torch.is_grad_enabled()``: True when ops record the graph."""
    return getattr(_state, "enabled", True)


def _set_enabled(mode):
    _state.enabled = bool(mode)


class _GradModeContext:
    _mode = None

    def __enter__(self):
        self._prev = is_grad_enabled()
        _set_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _set_enabled(self._prev)
        return False

    def __call__(self, fn):
        """Use as a decorator: the wrapped function runs in this mode."""
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = is_grad_enabled()
            _set_enabled(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _set_enabled(prev)
        return wrapper


class no_grad(_GradModeContext):
    """``torch.no_grad()``: ops inside do not record a graph."""
    _mode = False


class enable_grad(_GradModeContext):
    """``torch.enable_grad()``: turn recording back on inside a ``no_grad`` block."""
    _mode = True


class set_grad_enabled(_GradModeContext):
    """``torch.set_grad_enabled(mode)``: sets the mode at once (as PyTorch does) and
    restores the previous one when used as a context manager."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._prev = is_grad_enabled()
        _set_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set_enabled(self._prev)
        return False

    def __call__(self, fn):
        # As in PyTorch: decorating must not leave the mode changed.
        _set_enabled(self._prev)
        return super().__call__(fn)
