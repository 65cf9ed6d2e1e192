"""PyTorch's hook-based ``nn.utils``: ``weight_norm`` and ``spectral_norm`` (forward
pre-hooks) and ``parametrize`` (properties recomputed on access). Whole traces are
compared with torch in ``tests/differential/scenarios/a04_*``; these run without it."""
import warnings

import numpy as np
import pytest

import minigrad
from minigrad import nn
from minigrad.nn.utils import parametrize as P


def linear():
    lin = nn.Linear(3, 2, bias=False)
    with minigrad.no_grad():
        lin.weight.copy_(minigrad.tensor([[1.0, -2.0, 2.0], [0.0, 3.0, -4.0]]))
    return lin


def test_weight_norm_splits_the_weight_and_recombines_it_before_forward():
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        m = nn.utils.weight_norm(linear())
    assert [name for name, _ in m.named_parameters()] == ["weight_g", "weight_v"]
    assert m.weight_g.tolist() == [[3.0], [5.0]] and m.weight.grad_fn.name() == "WeightNormInterfaceBackward0"
    with minigrad.no_grad():
        m.weight_g.mul_(2.0)
    m(minigrad.ones(1, 3)).sum().backward()       # the pre-hook recomputes the weight
    assert np.allclose(m.weight.tolist(), [[2.0, -4.0, 4.0], [0.0, 6.0, -8.0]])
    assert np.allclose(m.weight_g.grad.tolist(), [[1 / 3], [-1 / 5]])
    nn.utils.remove_weight_norm(m)
    assert [name for name, _ in m.named_parameters()] == ["weight"] and not m._forward_pre_hooks


def test_spectral_norm_divides_by_the_largest_singular_value():
    s = nn.utils.spectral_norm(linear(), n_power_iterations=20)
    assert [name for name, _ in s.named_buffers()] == ["weight_u", "weight_v"]
    s(minigrad.ones(1, 3))
    sigma = np.linalg.svd(np.array(s.weight_orig.tolist()), compute_uv=False)[0]
    assert np.allclose(s.weight.tolist(), np.array(s.weight_orig.tolist()) / sigma, atol=1e-5)
    nn.utils.remove_spectral_norm(s)
    assert [name for name, _ in s.named_parameters()] == ["weight"] and not list(s.named_buffers())


class Double(nn.Module):
    def forward(self, X):
        return X * 2.0

    def right_inverse(self, A):
        return A / 2.0


def test_parametrize_recomputes_on_access_and_caches_inside_cached():
    m = P.register_parametrization(linear(), "weight", Double())
    assert type(m).__name__ == "ParametrizedLinear" and P.type_before_parametrizations(m) is nn.Linear
    assert [name for name, _ in m.named_parameters()] == ["parametrizations.weight.original"]
    assert m.parametrizations.weight.original.tolist() == [[0.5, -1.0, 1.0], [0.0, 1.5, -2.0]]
    assert m.weight is not m.weight and m.weight.tolist() == [[1.0, -2.0, 2.0], [0.0, 3.0, -4.0]]
    with P.cached():
        assert m.weight is m.weight
    m.weight = minigrad.ones(2, 3)
    assert m.parametrizations.weight.original.tolist() == [[0.5] * 3] * 2
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and m.weight.tolist() == [[1.0] * 3] * 2 and not P.is_parametrized(m)


def test_parametrizations_weight_norm_stores_magnitude_and_direction():
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the modern form is not deprecated
        m = nn.utils.parametrizations.weight_norm(linear())
    names = [name for name, _ in m.named_parameters()]
    assert names == ["parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert np.allclose(m.weight.tolist(), [[1.0, -2.0, 2.0], [0.0, 3.0, -4.0]])
