"""numpy's floating-point warnings, off while minigrad computes an op's forward.

PyTorch's kernels overflow to ``inf`` and make NaN in silence (anomaly mode is how to
find where); numpy's warn: ``RuntimeWarning: overflow encountered in multiply``. So
``_dispatch._kernel`` runs every forward between :func:`silence` and :func:`restore`
(a backward pass is quiet already: ``autograd.graph_task.running``).

``np.errstate`` would do, but costs ~2 us, a fifth of what a small op costs. From
numpy 2 on, the error state is a context variable, and setting it directly costs
~0.2 us; numpy 1.x keeps it in a process-wide setting (``np.seterr``).
"""
import functools

import numpy as np

__all__ = ["silence", "restore"]

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _state
    from numpy._core.umath import _make_extobj
except ImportError:     # numpy 1.x
    def silence():
        """Turn numpy's floating-point warnings off; returns what :func:`restore` needs."""
        return np.seterr(all="ignore")

    def restore(token):
        """Put back the warnings :func:`silence` turned off."""
        np.seterr(**token)
else:
    # the context variable's own methods: no Python frame in between
    silence = functools.partial(_state.set, _make_extobj(all="ignore"))
    restore = _state.reset
