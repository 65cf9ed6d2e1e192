"""``autograd.grad(..., is_grads_batched=True)`` against PyTorch (not a differential
scenario: the torch recorder of tests/test_trace.py cannot run under vmap)."""
import pytest

import minigrad


def _batched(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    w = T.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    gx, gw = T.autograd.grad(y, [x, w], grad_outputs=T.eye(2), is_grads_batched=True)
    return gx.tolist(), gw.tolist()


def test_values():
    assert _batched(minigrad) == ([[3.0, 0.0], [0.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]])


@pytest.mark.torch
def test_values_match_torch():
    torch = pytest.importorskip("torch")
    assert _batched(minigrad) == _batched(torch)
