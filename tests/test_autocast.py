"""CPU ``torch.autocast`` (``minigrad/amp/autocast_mode.py``): each op's policy from
PyTorch's CPU lists, the casts in the graph, the weight-cast cache, nesting, state
functions. ``tests/compat/scripts/fw07_cpu_autocast.py`` compares a training loop with PyTorch."""
import warnings

import pytest

import minigrad as torch
from minigrad import nn
from minigrad.amp import autocast_mode
from minigrad.nn import functional as F


def test_policies_follow_pytorchs_cpu_lists():
    assert {"mm", "bmm", "addmm", "matmul", "linear", "conv2d"} <= autocast_mode.LOWER_PRECISION_FP
    assert {"mse_loss", "nll_loss", "cross_entropy_loss", "prod", "trace"} <= autocast_mode.FP32
    assert autocast_mode.PROMOTE == {"cat", "stack", "index_copy"}
    listed = autocast_mode.FP32 | autocast_mode.LOWER_PRECISION_FP
    assert not {"exp", "softmax", "layer_norm", "sum"} & listed
    a, b = torch.ones(2, 3), torch.ones(3, 2)
    with torch.autocast("cpu"):
        assert (a @ b).dtype is torch.bfloat16 and (a * 2).dtype is torch.float32
        assert a.prod().dtype is torch.float32 and F.mse_loss(a.bfloat16(), a).dtype is torch.float32
        assert torch.cat([a.bfloat16(), a]).dtype is torch.float32
        assert torch.cat([a.bfloat16(), a.double()]).dtype is torch.float64
        assert (a.double() @ b.double()).dtype is torch.float64
        assert F.cross_entropy(a @ b, torch.tensor([0, 1])).dtype is torch.float32
    assert (a @ b).dtype is torch.float32


def test_casts_are_nodes_and_leaf_weights_are_cast_once_per_region():
    lin = nn.Linear(3, 2)
    x = torch.ones(4, 3)
    with torch.autocast("cpu"):
        y = lin(x)
        z = lin(x)
        names = [n.name() if n is not None else None for n, _ in y.grad_fn.next_functions]
        assert y.dtype is torch.bfloat16 and names == ["ToCopyBackward0", None, "TBackward0"]
        assert y.grad_fn.next_functions[0][0] is z.grad_fn.next_functions[0][0]    # the cached bias cast
    assert not autocast_mode._cache["casts"]          # cleared with the outermost region
    y.float().sum().backward()
    assert lin.weight.grad.dtype is torch.float32 and lin.weight.grad.shape == (2, 3)


def test_state_nesting_decorator_and_warnings():
    assert not torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") is torch.bfloat16
    with torch.autocast("cpu", dtype=torch.float16):
        assert torch.is_autocast_enabled("cpu") and not torch.is_autocast_enabled()
        with torch.autocast("cpu", enabled=False):
            assert not autocast_mode._active
        assert autocast_mode._active and torch.get_autocast_dtype("cpu") is torch.float16
    assert not autocast_mode._active and torch.get_autocast_dtype("cpu") is torch.bfloat16

    @torch.autocast("cpu")
    def product(u, v):
        return u @ v
    assert product(torch.ones(2, 2), torch.ones(2, 2)).dtype is torch.bfloat16
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        with torch.autocast("cpu", dtype=torch.float32):
            assert not autocast_mode._active
    with pytest.warns(UserWarning, match="CUDA is not available"):
        torch.autocast("cuda")
    with pytest.warns(FutureWarning, match="torch.cpu.amp.autocast"):
        torch.cpu.amp.autocast()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert torch.get_autocast_cpu_dtype() is torch.bfloat16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        torch.autocast(torch.device("cpu"))
