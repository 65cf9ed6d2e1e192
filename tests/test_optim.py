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


# --- the step seam and the optimizer's hooks (compared with PyTorch in the differential
# scenarios o04 and o05 and the compat scripts c82, c83, c86, c87, c90) ------------------
def _sgd():
    w = nn.Parameter(minigrad.tensor([1.0, -2.0]))
    w.grad = minigrad.tensor([1.0, 1.0])
    return w, optim.SGD([w], lr=0.5)


def test_step_is_wrapped_once_and_hooks_run_global_first_then_own_then_global():
    from minigrad.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
    w, opt = _sgd()
    assert optim.SGD.step.hooked and optim.Adam.step.hooked
    optim.SGD([nn.Parameter(minigrad.ones(1))])          # a second instance does not wrap again
    assert not getattr(optim.SGD.step.__wrapped__, "hooked", False)     # the decorated step itself
    log = []
    handles = [register_optimizer_step_pre_hook(lambda o, a, k: log.append(("global pre", a[0] is o))),
               register_optimizer_step_post_hook(lambda o, a, k: log.append(("global post", a[0] is o))),
               opt.register_step_pre_hook(lambda o, a, k: log.append(("own pre", a[0] is o))),
               opt.register_step_post_hook(lambda o, a, k: log.append(("own post", w.tolist())))]
    opt.step()
    for h in handles:
        h.remove()
    assert log == [("global pre", True), ("own pre", True), ("own post", [0.5, -2.5]), ("global post", True)]
    opt.step()
    assert len(log) == 4


def test_step_pre_hook_replaces_the_arguments_and_bad_returns_raise():
    w, opt = _sgd()
    h = opt.register_step_pre_hook(lambda o, a, k: ((a[0],), {"closure": lambda: 42}))
    assert opt.step() == 42
    h.remove()
    h = opt.register_step_pre_hook(lambda o, a, k: "oops")
    with pytest.raises(RuntimeError, match=r"SGD.step at 0x[0-9a-f]+> must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got oops\."):
        opt.step()
    h.remove()
    opt.step()                                           # still usable
    assert w.tolist() == [0.0, -3.0]


def test_step_pre_hook_returning_no_arguments_raises_index_error():
    """PyTorch's optimizers read the optimizer as ``args[0]`` of their step."""
    for make in (optim.SGD, optim.Adam):
        w, _ = _sgd()
        opt = make([w], lr=0.1)
        h = opt.register_step_pre_hook(lambda o, a, k: ((), {}))
        with pytest.raises(IndexError, match="^tuple index out of range$"):
            opt.step()
        h.remove()
        assert w.tolist() == [1.0, -2.0]


def test_step_runs_no_post_hook_when_it_raises():
    from minigrad.optim.optimizer import register_optimizer_step_post_hook
    w, opt = _sgd()
    ran = []
    handles = [register_optimizer_step_post_hook(lambda o, a, k: ran.append("global post")),
               opt.register_step_post_hook(lambda o, a, k: ran.append("own post"))]

    def closure():
        raise ValueError("the closure failed")

    try:
        with pytest.raises(ValueError, match="the closure failed"):
            opt.step(closure)
        assert ran == [] and w.tolist() == [1.0, -2.0]
        opt.step()
        assert ran == ["own post", "global post"]
    finally:
        for h in handles:
            h.remove()


def test_optimizer_state_dict_is_live_and_hooks_may_replace_it():
    w, opt = _sgd()
    opt.param_groups[0]["momentum"] = 0.9
    opt.step()
    sd = opt.state_dict()
    assert sd["state"][0] is opt.state[w]                # PyTorch returns the optimizer's own state
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append("pre A"))
    opt.register_state_dict_pre_hook(lambda o: log.append("pre B"), prepend=True)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1 and log == ["pre B", "pre A"]

    other = optim.SGD([nn.Parameter(minigrad.zeros(2, dtype=minigrad.float64))], lr=1.0)
    other.register_load_state_dict_pre_hook(
        lambda o, sd: {**sd, "param_groups": [dict(g, lr=0.25) for g in sd["param_groups"]]})
    other.register_load_state_dict_post_hook(lambda o: log.append("loaded"))
    other.load_state_dict(copy.deepcopy(opt.state_dict()))
    (p,) = other.param_groups[0]["params"]
    assert other.param_groups[0]["lr"] == 0.25 and log[-1] == "loaded"
    assert other.state[p]["momentum_buffer"].dtype == minigrad.float64     # cast to the parameter


def test_named_parameters_give_param_names():
    model = nn.Linear(2, 1)
    opt = optim.Adam(model.named_parameters(), lr=0.1)
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]
    with pytest.raises(ValueError, match="all optimizer param groups should be with/without names"):
        opt.add_param_group({"params": [nn.Parameter(minigrad.ones(1))]})


def test_hooks_are_not_deep_copied():
    w, opt = _sgd()
    opt.register_step_pre_hook(lambda o, a, k: None)
    assert len(copy.deepcopy(opt)._optimizer_step_pre_hooks) == 0
