"""Anomaly detection: find the forward op whose backward failed or produced NaN.

PyTorch counterparts: ``torch/autograd/anomaly_mode.py`` and, for what the mode does,
``torch/csrc/autograd/anomaly_mode.cpp``, ``python_anomaly_mode.cpp`` and ``engine.cpp``.
While the mode is on, as in PyTorch:

- every node made records the stack of the forward call that made it, as a list of
  ``traceback.format_stack()`` lines in ``node.metadata["traceback_"]`` (minigrad's own
  frames left out, as PyTorch's C++ leaves none: what remains is the caller's code);
- when a node fails during backward (its formula, a hook, the NaN check), a UserWarning
  shows that stack ("Error detected in MulBackward0. Traceback of forward call that
  caused the error: ..."), or says that no forward information was recorded;
- with ``check_nan`` (the default), a node that returns a NaN gradient fails with
  "Function 'SqrtBackward0' returned nan values in its 0th output.";
- the in-place version error ends with a different hint (``saved_variable.py``).

The switch is one for the whole process, as PyTorch's ``AnomalyMode`` is.
minigrad records no "parent" stacks (the node that was running when a node was
made during a ``create_graph`` backward).
"""
import os
import runpy
import traceback
import warnings

import numpy as np

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_anomaly_enabled",
           # what Node and the engine call while the mode is on
           "store_stack", "print_stack", "check_nan"]


class _AnomalyMode:
    enabled = False
    check_nan = True


def is_anomaly_enabled():
    """``torch.is_anomaly_enabled()``."""
    return _AnomalyMode.enabled


def is_anomaly_check_nan_enabled():
    """``torch.is_anomaly_check_nan_enabled()``: whether anomaly mode checks for NaN."""
    return _AnomalyMode.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled(enabled, check_nan=True)``."""
    _AnomalyMode.enabled = bool(enabled)
    _AnomalyMode.check_nan = bool(check_nan)


class set_detect_anomaly:
    """``torch.autograd.set_detect_anomaly(mode, check_nan=True)``: sets the mode at once;
    as a context manager, restores the previous one on exit."""

    def __init__(self, mode, check_nan=True):
        self._previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        set_anomaly_enabled(*self._previous)
        return False


class detect_anomaly:
    """``torch.autograd.detect_anomaly(check_nan=True)``: a context manager that turns the
    mode on inside (it warns, when made, that the mode is slow)."""

    def __init__(self, check_nan=True):
        self._check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        set_anomaly_enabled(True, self._check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(*self._previous)
        return False


_MINIGRAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_RUNPY = (runpy.__file__, "<frozen runpy>")


def store_stack(node):
    """Record the forward call's stack in ``node.metadata["traceback_"]`` (PyTorch's
    ``AnomalyMetadata::store_stack``). Left out: minigrad's frames, and the frames of
    ``python -m minigrad.run`` above the script (runpy's)."""
    frames = [f for f in traceback.extract_stack()
              if not (os.path.abspath(f.filename).startswith(_MINIGRAD_DIR) or f.filename in _RUNPY)]
    node.metadata["traceback_"] = traceback.format_list(frames)


def print_stack(node):
    """The warning PyTorch's engine gives when ``node`` failed in anomaly mode."""
    stack = node.metadata.get("traceback_")
    if stack is None:
        warnings.warn(f"Error detected in {node.name()}. No forward pass information available. "
                      "Enable detect anomaly during forward pass for more information.")
    else:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                      f"error:\n{''.join(stack)}")


def check_nan(node, outputs):
    """PyTorch's engine check: raise if a gradient ``node`` returned holds a NaN."""
    for i, grad in enumerate(outputs):
        if grad is not None and np.isnan(grad._array).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
