"""Anomaly mode and inference mode: the parts the differential scenarios (f05, f06) cannot
show, because they concern minigrad's own frames and state, and a run without torch."""
import warnings

import pytest

import minigrad as torch
from minigrad.autograd import anomaly_mode


def test_the_forward_traceback_keeps_the_callers_frames_and_leaves_out_minigrads():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            y = torch.nn.functional.linear(x, torch.ones(3, 2))     # several minigrad frames deep
    stack = "".join(y.grad_fn.metadata["traceback_"])
    assert __file__ in stack and "torch.nn.functional.linear(x" in stack
    package = anomaly_mode._MINIGRAD_DIR
    assert package not in stack, stack
    assert "traceback_" not in (x * 2).grad_fn.metadata, "a node made with the mode off records nothing"


def test_a_failing_node_warns_once_and_the_engine_stays_usable():
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            y = x.sqrt()
            with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its "
                                                   r"0th output\.$"):
                y.sum().backward()
    errors = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
    assert len(errors) == 1
    assert errors[0].startswith("Error detected in SqrtBackward0. Traceback of forward call")
    assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (False, True)
    z = torch.tensor([1.0, 4.0], requires_grad=True)
    z.sqrt().sum().backward()
    assert z.grad.tolist() == [0.5, 0.25]


def test_set_detect_anomaly_restores_both_switches_when_used_as_a_context_manager():
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (True, False)
        with torch.autograd.set_detect_anomaly(False):
            assert not torch.is_anomaly_enabled()
        assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (True, False)
    assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (False, True)


def test_inference_tensors_share_their_mark_with_views_and_detach_only():
    with torch.inference_mode():
        c = torch.ones(3)
        inside_view = c[1:]
    assert c.is_inference() and inside_view.is_inference()
    assert c[:2].is_inference() and c.detach().is_inference() and c.t().is_inference()
    assert not c.clone().is_inference() and not (c * 2).is_inference()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        inside_view.mul_(2)
    assert c.tolist() == [1.0, 2.0, 2.0], "as in PyTorch the write happens before the version bump refuses it"
    with torch.inference_mode():
        c.mul_(2)              # allowed inside
    assert c.tolist() == [2.0, 4.0, 4.0]
