"""Grad mode: whether ops record a graph.

PyTorch counterpart: ``torch/autograd/grad_mode.py``. Like PyTorch, the flag is
thread-local; ``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context
managers and as decorators, and always restore the previous mode, even on error.
"""
import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]

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


class _NoParamDecorator(_GradModeContext):
    """``@no_grad`` without parentheses decorates too, as in PyTorch."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """``torch.no_grad()``: ops inside do not record a graph."""
    _mode = False


class enable_grad(_NoParamDecorator):
    """``torch.enable_grad()``: turn recording back on inside a ``no_grad`` block."""
    _mode = True


class inference_mode(_GradModeContext):
    """``torch.inference_mode(mode=True)``: in minigrad, ``no_grad`` that also sets
    ``is_inference_mode_enabled()`` (``inference_mode(False)`` enables grad mode, as in
    PyTorch). PyTorch also marks the tensors made
    inside as "inference tensors" that may never join a graph later and skips version
    counting for speed; minigrad has no such tensors: they are ordinary tensors."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):       # @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._inference = bool(mode)

    @property
    def _mode(self):
        return not self._inference      # as PyTorch: inference_mode(False) turns grad mode on

    def __enter__(self):
        self._prev_inference = is_inference_mode_enabled()
        _state.inference = self._inference
        return super().__enter__()

    def __exit__(self, *exc):
        _state.inference = self._prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self._inference):
                return fn(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled():
    """``torch.is_inference_mode_enabled()``: True inside ``inference_mode()``."""
    return getattr(_state, "inference", False)


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
