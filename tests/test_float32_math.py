"""``set_exact_float32_math``: how minigrad computes float32 exp/log/tanh/sigmoid/sin/cos.

On by default: tensors of up to 4,096 elements are computed in float64 and rounded once,
larger ones with numpy's float32 kernels; off: the float32 kernels for every size."""
import numpy as np
import pytest

import minigrad
from minigrad import _ops

FUNCTIONS = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sin": np.sin, "cos": np.cos}


@pytest.fixture
def switch():
    before = minigrad.is_exact_float32_math()
    yield minigrad.set_exact_float32_math
    minigrad.set_exact_float32_math(before)


def _values(n):
    return np.random.default_rng(0).uniform(0.1, 3.0, n).astype(np.float32)


def _rounded_once(fn, x):
    return fn(x.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("exact", [True, False])
def test_which_kernel_computes_which_size(switch, name, exact):
    switch(exact)
    assert minigrad.is_exact_float32_math() is exact
    fn = FUNCTIONS[name]
    for n in (16, _ops._EXACT_MAX_NUMEL, _ops._EXACT_MAX_NUMEL + 1, 16384):
        x = _values(n)
        got = getattr(minigrad.from_numpy(x.copy()), name)().numpy()
        assert got.dtype == np.float32
        want = _rounded_once(fn, x) if exact and n <= _ops._EXACT_MAX_NUMEL else fn(x)
        np.testing.assert_array_equal(got, want, err_msg=f"{name} of {n} values, exact={exact}")


def test_the_two_kernels_really_differ():
    # Otherwise the test above could not tell them apart.
    x = _values(_ops._EXACT_MAX_NUMEL)
    assert (np.tanh(x) != _rounded_once(np.tanh, x)).any()


def test_small_tensors_print_what_torch_prints(switch):
    torch = pytest.importorskip("torch")
    switch(True)
    x = _values(1000)
    for name in ("exp", "tanh"):
        got = getattr(minigrad.from_numpy(x.copy()), name)().numpy()
        want = getattr(torch.from_numpy(x.copy()), name)().numpy()
        # float64-and-round-once agrees with PyTorch's float32 kernels on about 99 % of
        # values (the rest differ in the last bit); numpy's float32 kernels on about 65 %.
        assert (got == want).mean() > 0.97, name
