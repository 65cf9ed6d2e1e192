"""minigrad.exercises.simulations: the one-process DDP and FSDP of lessons 07 and 09."""
import warnings

import numpy as np

import minigrad as torch
from minigrad import nn
from minigrad.exercises.simulations import Reducer, SimulatedFSDP


def _params(seed):
    rng = np.random.default_rng(seed)
    return [torch.tensor(rng.standard_normal((3, 3)).astype(np.float32), requires_grad=True)
            for _ in range(3)]


def _loss(params, x):
    for w in params:
        x = (x @ w).tanh()
    return x.sum()


def test_reducer_averages_every_bucket_and_a_final_callback_waits_for_the_slow_worker():
    workers = [_params(0), _params(0)]
    inputs = [torch.ones(2, 3), torch.full((2, 3), 0.5)]
    expected = []
    for params, x in zip([_params(0), _params(0)], inputs):
        _loss(params, x).backward()
        expected.append([p.grad.numpy() for p in params])
    mean = [(a + b) / 2 for a, b in zip(*expected)]

    reducer = Reducer(workers, bucket_size=2)
    reducer.run([_loss(params, x) for params, x in zip(workers, inputs)], speeds=(3, 1))
    assert reducer.buckets == [[2, 1], [0]]
    for params in workers:
        for p, m in zip(params, mean):
            assert np.allclose(p.grad.numpy(), m, atol=1e-6)
    what = [(rank, event) for _, rank, event, _ in reducer.log if event != "waiting"]
    assert what.count((None, "all-reduce")) == 2
    assert what[-2:] == [(0, "final callback"), (1, "final callback")]
    assert any(event == "waiting" and rank == 0 for _, rank, event, _ in reducer.log)


def _mlp(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))


def test_simulated_fsdp_gives_the_averaged_gradient_and_frees_the_weights():
    x, y = torch.randn(8, 4), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    plain = _mlp()
    nn.CrossEntropyLoss()(plain(x), y).backward()

    model = _mlp()
    fsdp = SimulatedFSDP(model, world=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # the first layer's input needs no grad
        for rank in range(2):
            part = slice(rank * 4, rank * 4 + 4)
            nn.CrossEntropyLoss()(model(x[part]), y[part]).backward()
    for name, p in plain.named_parameters():
        assert np.allclose(fsdp.full_grad(name), p.grad.numpy(), atol=1e-5), name
        assert np.isnan(fsdp.params[name].data.numpy()).all()       # freed after backward
    assert fsdp.timeline[0][0] == "pre-forward 0: gather" and fsdp.timeline[-1][1] == 0
