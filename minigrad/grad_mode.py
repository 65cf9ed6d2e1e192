"""Grad mode: whether ops record a graph.

PyTorch counterpart: ``torch/autograd/grad_mode.py``. Like PyTorch, the flag is
thread-local; ``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context
managers and as decorators, and always restore the previous mode, even on error.
"""
import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "new_version_counter", "is_inference_counter", "records_graph"]

class _ModeState(threading.local):
    enabled = True          # grad mode
    inference = False       # inference mode (class-level defaults: read on every op, kept cheap)


_state = _ModeState()


def is_grad_enabled():
    """``torch.is_grad_enabled()``: True when ops record the graph."""
    return _state.enabled


def records_graph():
    """Whether an op made now records a node: grad mode on and inference mode off (one
    call for the check every op makes)."""
    state = _state
    return state.enabled and not state.inference


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
    """``torch.inference_mode(mode=True)``: ``no_grad`` that also sets
    ``is_inference_mode_enabled()`` (``inference_mode(False)`` enables grad mode, as in
    PyTorch), as a context manager or a decorator. Inside, no op records a graph, even
    under ``enable_grad``.

    As in PyTorch, every tensor made inside is an *inference tensor*
    (``t.is_inference()``), and so are its views and ``detach()``: it has no version
    counter (PyTorch skips that bookkeeping for speed). Outside inference mode, such a
    tensor may join a graph only where it need not be saved for backward; saving it,
    writing to it in place (the write happens, then the version bump raises, as in
    PyTorch), reading its ``_version`` or making it require grad raise PyTorch's errors.
    ``clone()`` gives a normal tensor. minigrad marks an inference tensor by its version
    counter (a view shares its base's), a ``_NoVersionCounter``."""

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
    return _state.inference


class _NoVersionCounter(list):
    """The version counter of an inference tensor: it counts nothing. As PyTorch's
    ``VariableVersion::bump``, a bump (an in-place write, which has already happened)
    raises outside inference mode."""

    def __setitem__(self, index, value):
        if not is_inference_mode_enabled():
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
                "a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details.")


def new_version_counter():
    """A new tensor's version counter: ``[0]``, or an inference tensor's inside
    ``inference_mode``."""
    return _NoVersionCounter([0]) if _state.inference else [0]


def is_inference_counter(version_counter):
    """Whether a tensor with this version counter is an inference tensor."""
    return type(version_counter) is _NoVersionCounter


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
