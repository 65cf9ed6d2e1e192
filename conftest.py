"""For every pytest run in this checkout (``tests/``, and nbval over ``spec/`` and
``lessons/``): a notebook's kernel that dies while it starts is started again.

A Jupyter kernel sometimes exits before it answers its first request ("Kernel died
before replying to kernel_info": once in a full ``tools/test-all`` run, for one spec
notebook, which passed in the three runs of the suite right after). jupyter_client
picks a kernel's five TCP ports by binding them and letting them go, and a kernel that
the other pytest-xdist worker starts at the same moment can take one of them first.
nbval starts each notebook's kernel once, so one lost race fails the whole notebook.
:class:`RetriedKernelStart` starts it again, up to three times; a kernel that dies
every time still fails the run.
"""
import logging

try:
    from nbval import kernel as _nbval_kernel
except ImportError:             # nbval comes with the test extra: nothing to wrap without it
    _nbval_kernel = None


class RetriedKernelStart:
    """``nbval.kernel.start_new_kernel``, tried again when the kernel died at start-up."""

    attempts = 3

    def __init__(self, start):
        self.start = start

    def __call__(self, *args, **kwargs):
        for attempt in range(1, self.attempts + 1):
            try:
                return self.start(*args, **kwargs)
            except RuntimeError as error:
                if "Kernel died" not in str(error) or attempt == self.attempts:
                    raise
                logging.getLogger("nbval").warning("%s (attempt %d of %d); starting it again",
                                                   error, attempt, self.attempts)


if _nbval_kernel is not None and not isinstance(_nbval_kernel.start_new_kernel, RetriedKernelStart):
    _nbval_kernel.start_new_kernel = RetriedKernelStart(_nbval_kernel.start_new_kernel)
