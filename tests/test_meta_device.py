"""Meta tensors (``minigrad/_meta.py``) and the default device (``torch.device`` as a
context manager, ``set_default_device``): no data, ops give meta results forward and
backward, printing, refusals, ``Module.to_empty``. ``tests/compat/scripts/fw04_meta_device.py``
compares the same with PyTorch."""
import io

import numpy as np
import pytest

import minigrad as torch
from minigrad import nn
from minigrad._meta import MetaArray


def test_a_meta_tensor_has_metadata_and_no_data():
    t = torch.empty(1000, 1000, device="meta", dtype=torch.float64)
    assert isinstance(t._array, MetaArray) and t.is_meta and not t.is_cpu
    assert t.device == torch.device("meta") and t.shape == (1000, 1000) and t.dtype is torch.float64
    assert t.element_size() == 8 and t.nbytes == 8_000_000 and t.numel() == 10 ** 6
    assert repr(t) == "tensor(..., device='meta', size=(1000, 1000), dtype=minigrad.float64)"
    assert repr(torch.empty(2, dtype=torch.int64, device="meta")) == \
        "tensor(..., device='meta', size=(2,), dtype=minigrad.int64)"


def test_ops_on_meta_tensors_give_meta_tensors_forward_and_backward():
    x = torch.empty(4, 3, device="meta", requires_grad=True)
    w = torch.empty(3, 2, device="meta", requires_grad=True)
    y = (x @ w).relu().sum(1) + torch.tensor(1.0)
    assert y.is_meta and y.shape == (4,) and y.grad_fn.name() == "AddBackward0"
    y.sum().backward()
    assert x.grad.is_meta and x.grad.shape == (4, 3) and w.grad.is_meta
    assert x.half().dtype is torch.float16 and x.half().is_meta and x[1:, 0].shape == (3,)
    assert torch.zeros_like(x).is_meta and torch.ones(2).to("meta").grad_fn is None
    moved = torch.ones(2, requires_grad=True).to("meta")
    assert moved.is_meta and moved.grad_fn.name() == "ToCopyBackward0"


def test_writes_into_meta_tensors_do_nothing_and_reads_raise_pytorchs_errors():
    t = torch.empty(2, 3, device="meta")
    assert t.uniform_() is t and t.zero_() is t and t.add_(1) is t and t.is_meta
    nn.init.kaiming_uniform_(t)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        t.tolist()
    with pytest.raises(NotImplementedError, match="no data"):
        t.to("cpu")
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        np.asarray(t)
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        t[0, 0].item()
    with pytest.raises(RuntimeError, match="Tensor on device cpu is not on the expected device meta!"):
        t + torch.ones(3)


def test_the_default_device_and_building_modules_without_memory():
    assert torch.get_default_device() == torch.device("cpu")
    with torch.device("meta") as device:
        assert device == torch.get_default_device() == torch.device("meta")
        model = nn.Sequential(nn.Linear(4096, 4096), nn.BatchNorm1d(4096), nn.LayerNorm(4096),
                              nn.Embedding(100, 4096), nn.Conv2d(3, 8, 3))
        assert torch.tensor([1.0]).is_meta and torch.arange(3).is_meta
        with torch.device("cpu"):
            assert not torch.zeros(1).is_meta
    assert not torch.zeros(1).is_meta
    assert all(t.is_meta for t in list(model.parameters()) + list(model.buffers()))
    assert model[1].num_batches_tracked.dtype is torch.int64
    torch.set_default_device("meta")
    try:
        assert torch.randn(3).is_meta
    finally:
        torch.set_default_device(None)
    assert torch.get_default_device() == torch.device("cpu")
    assert nn.Linear(2, 2, device="meta").weight.is_meta


def test_to_empty_then_load_and_to():
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    weight = model[0].weight
    with pytest.raises(NotImplementedError, match="to_empty"):
        model.to("cpu")
    assert model.to_empty(device="cpu") is model
    assert model[0].weight is not weight and isinstance(model[0].weight, nn.Parameter)
    assert not model[0].weight.is_meta and model[0].weight.requires_grad
    reference = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    model.load_state_dict(reference.state_dict())
    assert torch.equal(model[0].weight, reference[0].weight)
    model.to("meta")
    assert model[0].weight.is_meta and isinstance(model[0].weight, nn.Parameter)
    buffer = io.BytesIO()
    torch.save(reference.state_dict(), buffer)
    buffer.seek(0)
    assert all(t.is_meta for t in torch.load(buffer, map_location="meta").values())
