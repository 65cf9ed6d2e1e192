"""Optimizers step like PyTorch's (float32, several steps), and the step-in-backward recipe."""
import copy

import numpy as np
import pytest

import minigrad
from minigrad import nn, optim

W = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
B = np.random.default_rng(2).standard_normal(5).astype(np.float32)
X = np.random.default_rng(3).standard_normal((8, 4)).astype(np.float32)
T = np.random.default_rng(4).integers(0, 5, 8)

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.1, "weight_decay": 1e-2}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 1e-2}),
    ("Adam", {"lr": 1e-2, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 1e-2, "amsgrad": True}),
    ("AdamW", {"lr": 1e-2}),
]


def _train(lib, name, kw, steps=8):
    lin = lib.nn.Linear(4, 5)
    lin.weight = lib.nn.Parameter(lib.tensor(W))
    lin.bias = lib.nn.Parameter(lib.tensor(B))
    opt = getattr(lib.optim, name)(lin.parameters(), **kw)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(lin(lib.tensor(X)), lib.tensor(T)).backward()
        opt.step()
        history.append(lin.weight.detach().numpy().copy())
    return history


@pytest.mark.parametrize("name,kw", CASES)
def test_steps_match_torch(name, kw):
    torch = pytest.importorskip("torch")
    for ht, hm in zip(_train(torch, name, kw), _train(minigrad, name, kw)):
        np.testing.assert_allclose(hm, ht, rtol=0, atol=1e-6)


def test_zero_grad_set_to_none_and_param_groups():
    a, b = nn.Parameter(minigrad.ones(2)), nn.Parameter(minigrad.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    (a * 2 + b * 3).sum().backward()
    opt.step()
    assert a.tolist() == pytest.approx([0.8, 0.8]) and b.tolist() == pytest.approx([-0.5, -0.5])
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["param_groups"][1]["lr"] == 0.5


def test_adam_state_dict_round_trip():
    p = nn.Parameter(minigrad.tensor([1.0, -2.0]))
    opt = optim.Adam([p], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    sd = copy.deepcopy(opt.state_dict())     # a snapshot, as saving it to a file would be
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    q = nn.Parameter(minigrad.tensor(p.detach().numpy().copy()))
    opt2 = optim.Adam([q], lr=0.1)
    opt2.load_state_dict(sd)
    for o, t in ((opt, p), (opt2, q)):
        o.zero_grad()
        (t * t).sum().backward()
        o.step()
    assert np.array_equal(p.detach().numpy(), q.detach().numpy())


def test_step_in_backward_matches_a_normal_step():
    def make():
        minigrad.manual_seed(0)
        return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    x, t = minigrad.tensor(X), minigrad.tensor(T % 3)
    ref = make()
    opt = optim.Adam(ref.parameters(), lr=1e-2)
    fused = make()
    handles = optim.step_in_backward(fused.parameters(), lambda p: optim.Adam([p], lr=1e-2))
    for _ in range(3):
        opt.zero_grad()
        nn.functional.cross_entropy(ref(x), t).backward()
        opt.step()
        nn.functional.cross_entropy(fused(x), t).backward()     # steps inside backward
    for a, b in zip(ref.parameters(), fused.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-7)
        assert b.grad is None                                  # each grad was dropped after its step
    for h in handles:
        h.remove()


def _group_keys(T):
    p = [T.nn.Parameter(T.ones(2))]
    return [sorted(T.optim.SGD(p, lr=0.1).param_groups[0].items(), key=lambda kv: kv[0]),
            repr(T.optim.AdamW(p)).replace("torch.", "").splitlines()]


def test_param_groups_have_pytorchs_options():
    """foreach / fused / differentiable / capturable / decoupled_weight_decay are in every
    group, so print(optimizer) and state_dict()["param_groups"] read as PyTorch's."""
    sgd, adamw = _group_keys(minigrad)
    assert [k for k, _ in sgd] == ["dampening", "differentiable", "foreach", "fused", "lr", "maximize",
                                   "momentum", "nesterov", "params", "weight_decay"]
    assert "    decoupled_weight_decay: True" in adamw


def test_param_groups_match_torch():
    torch = pytest.importorskip("torch")
    mine, theirs = _group_keys(minigrad), _group_keys(torch)
    assert [k for k, _ in mine[0]] == [k for k, _ in theirs[0]] and mine[1] == theirs[1]
