"""``UninitializedParameter``/``UninitializedBuffer`` and the lazy modules
(``nn/modules/lazy.py``): placeholders, the initialising pre-hook, the class swap,
state_dict loading. ``tests/compat/scripts/fw06_lazy_modules.py`` compares with PyTorch."""
import pytest

import minigrad as torch
from minigrad import nn
from minigrad.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy


def test_placeholders_refuse_shape_and_ops_until_materialized():
    p = UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad and is_lazy(p)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        p.shape
    with pytest.raises(ValueError, match="<method 'add' of 'torch._C.TensorBase' objects>"):
        p + 1
    with pytest.raises(ValueError, match="'sum'"):
        p.sum()
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.requires_grad and not is_lazy(p)
    b = UninitializedBuffer(dtype=torch.float64)
    b.materialize((4,))
    assert type(b) is torch.Tensor and b.dtype is torch.float64 and not b.requires_grad


@pytest.mark.parametrize("lazy, x, becomes, shapes", [
    (nn.LazyLinear(3), torch.ones(2, 5), nn.Linear, [(3, 5), (3,)]),
    (nn.LazyConv2d(4, 3), torch.ones(1, 2, 5, 5), nn.Conv2d, [(4, 2, 3, 3), (4,)]),
    (nn.LazyBatchNorm1d(), torch.ones(4, 3), nn.BatchNorm1d, [(3,), (3,)]),
    (nn.LazyBatchNorm2d(), torch.ones(2, 3, 2, 2), nn.BatchNorm2d, [(3,), (3,)]),
])
def test_the_first_forward_materializes_and_swaps_the_class(lazy, x, becomes, shapes):
    assert lazy.has_uninitialized_params() and len(lazy._forward_pre_hooks) == 1
    lazy(x)
    assert type(lazy) is becomes and not hasattr(lazy, "_initialize_hook")
    assert [tuple(p.shape) for p in lazy.parameters()] == shapes and not lazy._forward_pre_hooks
    assert all(type(p) is nn.Parameter for p in lazy.parameters())


def test_state_dict_round_trips():
    lazy = nn.LazyLinear(3)
    assert all(is_lazy(v) for v in lazy.state_dict().values())
    reference = nn.Linear(6, 3)
    lazy.load_state_dict(reference.state_dict())
    assert type(lazy) is nn.LazyLinear and torch.equal(lazy.weight, reference.weight)
    lazy(torch.ones(1, 6))
    assert type(lazy) is nn.Linear and lazy.in_features == 6
    with pytest.raises(RuntimeError, match="has not been fully initialized"):
        class Broken(nn.LazyLinear):
            def initialize_parameters(self, input):
                pass
        Broken(2)(torch.ones(1, 2))
