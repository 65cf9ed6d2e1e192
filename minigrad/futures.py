"""``torch.futures``: a value that an asynchronous call will deliver.

PyTorch counterpart: ``torch/futures/__init__.py`` (``torch._C.Future``). minigrad runs
everything at once, in the calling thread, so its futures are complete when a caller
first sees them (``torch.jit.fork``) or as soon as ``set_result`` is called; ``then``
runs its callback at once when the value is already there.
"""

__all__ = ["Future", "collect_all", "wait_all"]

_PENDING = object()


class Future:
    """``torch.futures.Future()``: ``set_result(value)`` or ``set_exception(error)`` completes
    it; ``wait()`` returns the value (or raises the error); ``then(callback)`` returns a new
    future completed with ``callback(this_future)``."""

    __module__ = "minigrad"

    def __init__(self, *, devices=None):
        self._result = _PENDING
        self._error = None
        self._callbacks = []

    def done(self):
        return self._result is not _PENDING or self._error is not None

    def set_result(self, result):
        if self.done():
            raise RuntimeError("Future can only be marked completed once.")
        self._result = result
        self._run_callbacks()

    def set_exception(self, result):
        if self.done():
            raise RuntimeError("Future can only be marked completed once.")
        self._error = result
        self._run_callbacks()

    def _run_callbacks(self):
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def wait(self):
        if not self.done():
            raise RuntimeError("minigrad runs every call at once, so nothing will complete this "
                               "Future while wait() blocks: set_result() it first.")
        return self.value()

    def value(self):
        if self._error is not None:
            raise self._error
        if self._result is _PENDING:
            raise RuntimeError("Future.value() called before the future completed "
                               "(set_result() it first).")
        return self._result

    def add_done_callback(self, callback):
        if self.done():
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback):
        chained = Future()

        def run(future):
            try:
                chained.set_result(callback(future))
            except Exception as error:      # the chained future carries it, as in PyTorch
                chained.set_exception(error)
        self.add_done_callback(run)
        return chained


def _completed(value):
    future = Future()
    future.set_result(value)
    return future


def collect_all(futures):
    """A future of the list of ``futures``, complete when all of them are (here: at once)."""
    return _completed(list(futures))


def wait_all(futures):
    """The values of ``futures``, in order."""
    return [future.wait() for future in futures]
