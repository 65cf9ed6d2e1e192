"""``nn.init`` works through the in-place ``Tensor`` methods, as PyTorch's does, and the
layers' ``reset_parameters`` through ``nn.init``: what a patched ``Tensor.uniform_`` sees.
``tests/compat/scripts/fw05_init_calls.py`` compares the calls with PyTorch's."""
import math

import pytest

import minigrad as torch
from minigrad import nn


@pytest.fixture
def recorded(monkeypatch):
    calls = []
    for name in ("uniform_", "normal_", "fill_", "zero_"):
        original = getattr(torch.Tensor, name)

        def method(self, *args, _name=name, _original=original, **kwargs):
            calls.append((_name, tuple(self.shape), args))
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(torch.Tensor, name, method)
    return calls


def test_layers_initialise_through_the_tensor_methods(recorded):
    nn.Linear(3, 2)
    nn.Conv2d(2, 3, 3)
    nn.Embedding(4, 2)
    bound = math.sqrt(3.0) * math.sqrt(2.0 / 6) / math.sqrt(3)      # kaiming_uniform_(a=sqrt(5))
    assert recorded == [("uniform_", (2, 3), (-bound, bound)),
                        ("uniform_", (2,), (-1 / math.sqrt(3), 1 / math.sqrt(3))),
                        ("uniform_", (3, 2, 3, 3), (-math.sqrt(3.0) * math.sqrt(2.0 / 6) / math.sqrt(18),
                                                    math.sqrt(3.0) * math.sqrt(2.0 / 6) / math.sqrt(18))),
                        ("uniform_", (3,), (-1 / math.sqrt(18), 1 / math.sqrt(18))),
                        ("normal_", (4, 2), (0.0, 1.0))]


def test_initialisers_fill_as_their_formulas_say():
    w = torch.empty(40, 30)
    assert nn.init.xavier_uniform_(w) is w
    assert float(w.abs().max()) <= math.sqrt(6 / 70)
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert float(w.abs().max()) <= 0.5
    nn.init.trunc_normal_(w, std=1.0, a=1.5, b=1.8)        # the narrow-interval branch
    assert 1.5 <= float(w.min()) and float(w.max()) <= 1.8
    q = nn.init.orthogonal_(torch.empty(3, 6))
    assert torch.allclose(q @ q.t(), torch.eye(3), atol=1e-5)
    assert nn.init.eye_(torch.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    d = nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
    assert float(d.sum()) == 4 and float(d[1, 1, 1, 1]) == 1 and float(d[3, 1, 1, 1]) == 1
    s = nn.init.sparse_(torch.empty(5, 4), sparsity=0.4)
    assert (s == 0).sum(0).tolist() == [2, 2, 2, 2]
    assert nn.init.constant_(torch.empty(2), 0.25).tolist() == [0.25, 0.25]
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    assert nn.init._calculate_fan_in_and_fan_out(torch.empty(5, 3, 2, 2)) == (12, 20)
    with pytest.raises(ValueError, match="Unsupported nonlinearity swish"):
        nn.init.calculate_gain("swish")
    with pytest.warns(FutureWarning, match="nn.init.normal_"):
        nn.init.normal(torch.empty(2))
    with pytest.warns(UserWarning, match="zero-element"):
        nn.init.kaiming_normal_(torch.empty(0, 2))
