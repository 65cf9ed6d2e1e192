"""Anomaly detection, reduced to what changes a message.

PyTorch counterpart: ``torch/autograd/anomaly_mode.py``. In PyTorch, anomaly mode
records forward tracebacks and checks for NaN; minigrad keeps only the effects a
learner sees in a trace: the in-place error's hint and the "Error detected in ..."
warning when a node fails.
"""
import threading

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]

_state = threading.local()


def is_anomaly_enabled():
    return getattr(_state, "enabled", False)


class set_detect_anomaly:
    """``torch.autograd.set_detect_anomaly(mode, check_nan=True)``: context manager."""

    def __init__(self, mode, check_nan=True):
        self._previous = is_anomaly_enabled()
        _state.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled = self._previous
        return False


class detect_anomaly(set_detect_anomaly):
    """``torch.autograd.detect_anomaly()``."""

    def __init__(self, check_nan=True):
        super().__init__(True, check_nan)
