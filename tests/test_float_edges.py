"""What a script notices beyond the values, checked without torch (the same cases run
against PyTorch in tests/differential/scenarios/f07_signed_zeros_overflow_error_context.py):
the sign of zero in a matrix product, silence on float overflow, and one error (not
numpy's chained to it) when shapes do not broadcast."""
import traceback
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad.autograd.graph import saved_tensors_hooks


def test_a_layer_with_one_output_gives_minus_zero_input_gradients():
    """x.grad = grad @ weight sums one term per entry: -1 * 0 is -0.0, as in PyTorch."""
    x = minigrad.full((3, 2), 0.5, requires_grad=True)
    w = minigrad.zeros(1, 2, requires_grad=True)
    F.linear(x, w).backward(minigrad.full((3, 1), -1.0))
    assert np.signbit(x.grad.numpy()).all(), x.grad
    assert "-0." in repr(x.grad)
    a = minigrad.full((2, 1), -1.0)
    assert np.signbit((a @ minigrad.zeros(1, 3)).numpy()).all()
    # a sum of several terms starts from +0.0, and so does a product with one row
    assert not np.signbit((minigrad.full((2, 2), -1.0) @ minigrad.zeros(2, 3)).numpy()).any()
    assert not np.signbit((a[:1] @ minigrad.zeros(1, 3)).numpy()).any()


def test_overflow_in_forward_is_silent():
    big = minigrad.tensor([3e38, -3e38, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = [big * 10, big + big, big @ big, minigrad.tensor([3e38, 3e38]).sum(),
                   minigrad.tensor([2 ** 62]) * 1e30, minigrad.tensor([-1.0]).log(),
                   F.mse_loss(big, -big)]
        sum(r.sum() for r in results[:2]).backward()
    assert [r.tolist() for r in results[:2]] == [[float("inf"), float("-inf"), 10.0],
                                                 [float("inf"), float("-inf"), 2.0]]
    assert np.geterr()["over"] == "warn"          # numpy's own setting is back


def _shown(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return "".join(traceback.format_exception(info.value))


def test_a_broadcast_error_is_shown_alone():
    text = _shown(lambda: minigrad.ones(2) * minigrad.ones(3))
    assert "ValueError" not in text and "During handling" not in text
    assert text.rstrip().endswith("The size of tensor a (2) must match the size of tensor b (3) at "
                                  "non-singleton dimension 0")

    def unpack_wrong_shape():
        x = minigrad.tensor([1.0, 2.0], requires_grad=True)
        with saved_tensors_hooks(lambda t: t, lambda t: minigrad.ones(3)):
            y = x * x
        y.sum().backward()

    assert "ValueError" not in _shown(unpack_wrong_shape)
