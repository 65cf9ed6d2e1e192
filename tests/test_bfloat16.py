"""bfloat16 (``ml_dtypes.bfloat16`` arrays): conversions through float32, arithmetic in
float32 rounded back, promotion, printing, ``finfo``/``iinfo`` and autograd. The
differential script ``tests/compat/scripts/fw01_bfloat16.py`` compares the same with
PyTorch; these checks need no torch."""
import ml_dtypes
import numpy as np
import pytest

import minigrad as torch
from minigrad import nn


def test_the_dtype_is_ml_dtypes_bfloat16_and_prints_as_torchs():
    assert torch.bfloat16.np == np.dtype(ml_dtypes.bfloat16)
    assert repr(torch.bfloat16) == "minigrad.bfloat16" and torch.bfloat16.itemsize == 2
    assert torch.bfloat16.is_floating_point and torch.bfloat16.to_real() is torch.bfloat16
    b = torch.tensor([1.0, 3.14159], dtype=torch.bfloat16)
    assert b.dtype is torch.bfloat16 and b.is_floating_point() and b.type() == "torch.BFloat16Tensor"
    assert repr(b) == "tensor([1.0000, 3.1406], dtype=minigrad.bfloat16)"


def test_conversions_round_through_float32_as_pytorch_does():
    # 2**24 + 2**16 + 1 is just above a bfloat16 halfway point, exactly on it in float32
    assert torch.tensor([2 ** 24 + 2 ** 16 + 1]).to(torch.bfloat16).item() == 2.0 ** 24
    assert torch.tensor([2 ** 24 + 2 ** 16 + 1.0], dtype=torch.bfloat16).item() == 2.0 ** 24
    assert torch.tensor([0.1]).bfloat16().float().item() == 0.10009765625


def test_ops_compute_in_float32_and_round_and_promote_like_pytorch():
    b = torch.tensor([1.0, 2.5, 3.14159, 1e-3, 300.7], dtype=torch.bfloat16)
    total = b.sum()
    assert total.dtype is torch.bfloat16 and total.item() == 306.0     # float32 sum, then rounded
    assert (b @ b).item() == 90112.0
    assert (b * 2).dtype is torch.bfloat16 and (b * torch.tensor([2] * 5)).dtype is torch.bfloat16
    assert (b + torch.ones(5)).dtype is torch.float32
    assert (b + torch.ones(5, dtype=torch.float16)).dtype is torch.float32
    assert (b > 1).dtype is torch.bool


def test_autograd_through_bfloat16():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert y.requires_grad and x.grad.dtype is torch.bfloat16 and x.grad.tolist() == [2.0, 4.0, 6.0]
    w = torch.ones(2, requires_grad=True)
    w.bfloat16().sum().backward()
    assert w.grad.dtype is torch.float32
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1, 2]).requires_grad_()


def test_module_casts_and_numpy_refusal():
    lin = nn.Linear(2, 2).bfloat16()
    assert lin.weight.dtype is torch.bfloat16
    assert lin(torch.ones(1, 2, dtype=torch.bfloat16)).dtype is torch.bfloat16
    assert lin.float().weight.dtype is torch.float32 and lin.half().weight.dtype is torch.float16
    bn = nn.BatchNorm1d(2).bfloat16()
    assert bn.running_mean.dtype is torch.bfloat16 and bn.num_batches_tracked.dtype is torch.int64
    with pytest.raises(TypeError, match="BFloat16"):
        torch.ones(1, dtype=torch.bfloat16).numpy()


def test_finfo_and_iinfo():
    info = torch.finfo(torch.bfloat16)
    assert (info.bits, info.eps, info.resolution, info.dtype) == (16, 0.0078125, 0.01, "bfloat16")
    assert repr(info) == ("finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, "
                          "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)")
    assert torch.finfo() == torch.finfo(torch.float32) and torch.finfo(torch.float16).max == 65504.0
    assert repr(torch.iinfo(torch.int64)) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"
    assert torch.iinfo(torch.int32).max == 2 ** 31 - 1
    with pytest.raises(TypeError, match="torch.iinfo"):
        torch.finfo(torch.int64)
    with pytest.raises(TypeError, match="torch.finfo"):
        torch.iinfo(torch.float32)
