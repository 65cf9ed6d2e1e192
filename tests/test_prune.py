"""nn.utils.prune (pruning by forward pre-hooks), gradient clipping and
parameters_to_vector: the mechanism on its own, then the same traces under PyTorch.

Data is tie-free wherever a mask is compared with PyTorch's: among equal importance
scores minigrad prunes the lowest flat index first, while PyTorch's ``topk`` picks
ties in an order set by its selection algorithm (test_l1_ties_prune_lowest_index_first).
Masks of the random methods are not compared (minigrad's generator is not PyTorch's):
only their counts and structure are.
"""
import importlib
import math
import warnings

import numpy as np
import pytest

import minigrad
from minigrad import nn
from minigrad.nn.utils import prune

W = np.array([[0.3, -1.2, 0.05, 2.0], [-0.7, 0.9, -0.01, 0.4], [1.5, -0.2, 0.6, -2.5]], dtype=np.float32)


def _linear(lib):
    lin = lib.nn.Linear(4, 3)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(W))
        lin.bias.copy_(lib.tensor([0.1, -0.25, 0.3]))
    return lin


def _names(module):
    return [n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()]


# --- the mechanism (no torch needed) --------------------------------------------------------

def test_l1_unstructured_reparametrises_with_a_pre_hook():
    lin = _linear(minigrad)
    prune.l1_unstructured(lin, "weight", amount=0.25)
    assert _names(lin) == (["bias", "weight_orig"], ["weight_mask"])
    assert list(lin.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert "weight" not in lin._parameters and not isinstance(lin.weight, nn.Parameter)
    (hook,) = lin._forward_pre_hooks.values()
    assert isinstance(hook, prune.L1Unstructured) and hook._tensor_name == "weight"
    assert (lin.weight_mask.numpy() == (np.abs(W) > 0.2)).all()      # the 3 smallest |w|
    assert lin.weight.grad_fn.name() == "MulBackward0"
    # the pre-hook recomputes weight from the current weight_orig at every call
    with minigrad.no_grad():
        lin.weight_orig.mul_(2.0)
    out = lin(minigrad.ones(1, 4))
    np.testing.assert_allclose(lin.weight.detach().numpy(), 2 * W * lin.weight_mask.numpy())
    out.sum().backward()
    assert (lin.weight_orig.grad.numpy()[lin.weight_mask.numpy() == 0] == 0).all()


def test_iterative_pruning_applies_to_the_remaining_units():
    lin = _linear(minigrad)
    prune.l1_unstructured(lin, "weight", amount=0.5)        # 6 of 12
    prune.l1_unstructured(lin, "weight", amount=0.5)        # 3 of the 6 left
    (hook,) = lin._forward_pre_hooks.values()
    assert isinstance(hook, prune.PruningContainer) and len(hook) == 2
    assert int((lin.weight_mask.numpy() == 0).sum()) == 9
    kept = np.sort(np.abs(W).ravel())[-3:]
    assert sorted(np.abs(lin.weight.detach().numpy()[lin.weight_mask.numpy() == 1])) == list(kept)


def test_remove_makes_it_permanent():
    lin = _linear(minigrad)
    param = lin.weight
    prune.l1_unstructured(lin, "weight", amount=4)
    masked = lin.weight.detach().numpy().copy()
    prune.remove(lin, "weight")
    assert lin.weight is param and isinstance(lin.weight, nn.Parameter)
    assert _names(lin) == (["bias", "weight"], []) and not lin._forward_pre_hooks
    np.testing.assert_array_equal(lin.weight.detach().numpy(), masked)
    assert not prune.is_pruned(lin)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(lin, "weight")


def test_random_unstructured_counts():
    minigrad.manual_seed(0)
    lin = _linear(minigrad)
    prune.random_unstructured(lin, "weight", amount=0.5)
    assert int((lin.weight_mask.numpy() == 0).sum()) == 6
    prune.random_unstructured(lin, "weight", amount=2)
    first = lin.weight_mask.numpy().copy()
    assert int((first == 0).sum()) == 8
    minigrad.manual_seed(0)
    again = prune.random_unstructured(prune.random_unstructured(_linear(minigrad), "weight", 0.5), "weight",
                                      2)
    np.testing.assert_array_equal(again.weight_mask.numpy(), first)     # seeded: reproducible


def test_random_structured_prunes_whole_slices():
    minigrad.manual_seed(1)
    lin = prune.random_structured(_linear(minigrad), "weight", amount=2, dim=1)
    assert sorted(lin.weight_mask.numpy().sum(0).tolist()) == [0, 0, 3, 3]


def test_l1_ties_prune_lowest_index_first():
    # A documented difference: PyTorch's topk may pick other entries among equal values.
    lin = nn.Linear(6, 1)
    with minigrad.no_grad():
        lin.weight.copy_(minigrad.tensor([[1.0, -1.0, 1.0, 2.0, -1.0, 1.0]]))
    prune.l1_unstructured(lin, "weight", amount=2)
    assert lin.weight_mask.tolist() == [[0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]


def test_clip_grad_norm_by_hand():
    a = minigrad.tensor([3.0, 4.0], requires_grad=True)
    b = minigrad.tensor([12.0], requires_grad=True)
    (a.sum() * 0 + (a * a).sum() / 2 + (b * b).sum() / 2).backward()      # grads = values
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.3)
    assert total.item() == pytest.approx(13.0)
    np.testing.assert_allclose(a.grad.numpy(), [0.3, 0.4], rtol=1e-5)
    nn.utils.clip_grad_value_([a, b], 0.35)
    np.testing.assert_allclose(a.grad.numpy(), [0.3, 0.35], rtol=1e-6)
    vec = nn.utils.parameters_to_vector([a, b])
    assert vec.tolist() == [3.0, 4.0, 12.0] and vec.grad_fn.name() == "CatBackward0"


# --- against PyTorch ------------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch")


def _error(fn):
    try:
        return fn()
    except Exception as e:      # noqa: BLE001 - the type and message are what is compared
        # the module name is the one printed difference allowed
        return type(e).__name__, str(e).replace("minigrad.", "torch.")


def _prune_module(lib):
    # PyTorch does not import torch.nn.utils.prune with torch.nn.utils: import it by name.
    return importlib.import_module(lib.__name__ + ".nn.utils.prune")


def _same(a, b):
    """Equal, with floats compared to a relative 1e-6 (float32 noise)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _prune_trace(lib):
    P = _prune_module(lib)
    out = []
    lin = _linear(lib)
    P.l1_unstructured(lin, "weight", amount=0.25)
    out.append((_names(lin), list(lin.state_dict()), lin.weight_mask.tolist(), lin.weight.grad_fn.name(),
                [type(h).__name__ for h in lin._forward_pre_hooks.values()], P.is_pruned(lin)))
    y = lin(lib.tensor([[1.0, 2.0, 3.0, 4.0]]))
    y.sum().backward()
    out.append((np.round(y.tolist(), 4).tolist(), lin.weight_orig.grad.tolist()))
    P.l1_unstructured(lin, "weight", amount=2)
    P.l1_unstructured(lin, "weight", amount=0.5)
    hook = next(iter(lin._forward_pre_hooks.values()))
    out.append((type(hook).__name__, [type(m).__name__ for m in hook], [getattr(m, "amount",
                                                                                None) for m in hook],
                lin.weight_mask.tolist()))
    P.random_unstructured(lin, "weight", amount=0.5)
    out.append((int((lin.weight_mask == 0).sum()), len(next(iter(lin._forward_pre_hooks.values())))))
    P.remove(lin, "weight")
    out.append((_names(lin), type(lin.weight).__name__, dict(lin._forward_pre_hooks), P.is_pruned(lin),
                int((lin.weight == 0).sum())))
    out.append(_error(lambda: P.remove(lin, "weight")))
    lin = _linear(lib)
    scores = lib.tensor([[4.0, 3, 2, 1], [8, 7, 6, 5], [12, 11, 10, 9]])
    out.append(P.l1_unstructured(lin, "weight", amount=3, importance_scores=scores).weight_mask.tolist())
    out.append(_error(lambda: P.l1_unstructured(_linear(lib), "weight", 1, importance_scores=lib.ones(4))))
    for amount in (-1, 1.5, -0.1, "a", 13, 12, 0, 0.0, 1.0, True, 0.125):
        def go(amount=amount):
            m = P.l1_unstructured(_linear(lib), "weight", amount=amount)
            return int((m.weight_mask == 0).sum()), _names(m)
        out.append(_error(go))
    m = _linear(lib)
    out.append((_error(lambda: P.l1_unstructured(m, "weight", amount=20)), _names(m),
                dict(m._forward_pre_hooks)))
    m = P.identity(_linear(lib), "bias")
    out.append((m.bias_mask.tolist(), list(m.state_dict())))
    m = P.custom_from_mask(_linear(lib), "bias", lib.tensor([1, 0, 1]))
    out.append((m.bias_mask.tolist(), m.bias.tolist()))
    m = P.ln_structured(_linear(lib), "weight", amount=1, n=2, dim=0)
    out.append(m.weight_mask.tolist())
    out.append(P.ln_structured(m, "weight", amount=0.5, n=1, dim=1).weight_mask.tolist())
    out.append(P.ln_structured(_linear(lib), "weight", amount=2, n=float("inf"), dim=-1).weight_mask.tolist())
    out.append(_error(lambda: P.ln_structured(_linear(lib), "bias", amount=1, n=2, dim=0)))
    out.append(_error(lambda: P.ln_structured(_linear(lib), "weight", amount=1, n=2, dim=2)))
    out.append(sorted(P.random_structured(_linear(lib), "weight", amount=2,
                                          dim=1).weight_mask.sum(0).tolist()))
    # global pruning over three tensors, one of them already pruned
    a, b = _linear(lib), lib.nn.Linear(2, 2)
    with lib.no_grad():
        b.weight.copy_(lib.tensor([[0.02, -3.0], [0.5, -0.03]]))
    P.l1_unstructured(a, "bias", amount=1)
    params = [(a, "weight"), (a, "bias"), (b, "weight")]
    P.global_unstructured(params, pruning_method=P.L1Unstructured, amount=5)
    out.append((a.weight_mask.tolist(), a.bias_mask.tolist(), b.weight_mask.tolist(),
                [type(h).__name__ for h in a._forward_pre_hooks.values()],
                [type(h).__name__ for h in b._forward_pre_hooks.values()]))
    out.append(_error(lambda: P.global_unstructured(3, P.L1Unstructured, amount=1)))
    out.append(_error(lambda: P.global_unstructured(params, P.L1Unstructured, importance_scores=[1],
                                                    amount=1)))
    a, b = _linear(lib), _linear(lib)
    P.global_unstructured([(a, "weight"), (b, "weight")], P.L1Unstructured,
                          importance_scores={(b, "weight"): lib.zeros(3, 4)}, amount=0.5)
    out.append((a.weight_mask.tolist(), b.weight_mask.tolist()))
    # the method object, and the container's checks
    m = _linear(lib)
    method = P.L1Unstructured.apply(m, "weight", amount=1)
    out.append((type(method).__name__, method.amount, method._tensor_name, callable(method),
                method.prune(lib.tensor([3.0, -1.0, 2.0])).tolist()))
    out.append(_error(lambda: P.PruningContainer(method).add_pruning_method(3)))
    out.append(_error(lambda: P.remove(lib.nn.Linear(1, 1), "weight")))
    # state_dict of a pruned module
    m2 = P.l1_unstructured(_linear(lib), "weight", amount=0.5)
    m3 = P.identity(_linear(lib), "weight")
    keys = m3.load_state_dict(m2.state_dict())
    m3(lib.ones(1, 4))
    out.append((repr(keys), m3.weight_mask.tolist(), m3.weight.tolist() == m2.weight.tolist()))
    out.append(_error(lambda: _linear(lib).load_state_dict(m2.state_dict())))
    conv = lib.nn.Conv2d(1, 2, 2)
    with lib.no_grad():
        conv.weight.copy_(lib.tensor([[[[0.1, -0.4], [0.25, 0.9]]], [[[-0.05, 0.7], [-0.3, 0.6]]]]))
    P.l1_unstructured(conv, "weight", amount=3)
    out.append((conv.weight_mask.flatten().tolist(), list(conv.state_dict()),
                P.is_pruned(lib.nn.Sequential(lib.nn.Linear(1, 1), conv))))
    return out


@pytest.mark.torch
def test_prune_matches_torch():
    torch = _torch()
    ref = _prune_trace(torch)
    got = _prune_trace(minigrad)
    for a, b in zip(got, ref):
        assert a == b
    assert len(got) == len(ref)


@pytest.mark.torch
def test_prune_hook_composes_with_user_hooks_like_torch():
    torch = _torch()
    seen = []
    for lib in (torch, minigrad):
        log = []
        lin = _linear(lib)
        lin.register_forward_pre_hook(lambda m, args: log.append(("user pre", hasattr(m, "weight_orig"))))
        lin.register_forward_hook(lambda m, args, out: log.append(("user post", m.weight.tolist())))
        _prune_module(lib).l1_unstructured(lin, "weight", amount=6)
        with lib.no_grad():
            lin.weight_orig.add_(1.0)
        y = lin(lib.ones(1, 4))
        seen.append((log, np.round(y.tolist(), 5).tolist()))
    assert seen[1] == seen[0]


def _clip_trace(lib):
    out = []
    for norm_type in (2.0, 1, 3, float("inf"), 0.5):
        a = lib.tensor([[0.5, -2.0], [1.5, 0.25]], requires_grad=True)
        b = lib.tensor([3.0, -0.75, 0.1], requires_grad=True)
        c = lib.tensor([1.0], requires_grad=True)       # no grad: skipped
        ((a * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum() + (b * b).sum()).backward()
        total = lib.nn.utils.clip_grad_norm_([a, b, c], max_norm=2.0, norm_type=norm_type)
        out.append((tuple(total.shape), str(total.dtype).split(".")[-1], total.item(),
                    a.grad.tolist(), b.grad.tolist(), c.grad))
        total = lib.nn.utils.clip_grad_norm_(a, max_norm=100.0)      # below max: unchanged
        out.append((total.item(), a.grad.tolist()))
        lib.nn.utils.clip_grad_value_([a, b], clip_value=0.3)
        out.append((a.grad.tolist(), b.grad.tolist()))
    out.append(lib.nn.utils.clip_grad_norm_([lib.ones(2, requires_grad=True)], 1.0).tolist())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.append((lib.nn.utils.clip_grad_norm_((p for p in []), 1.0).tolist(), [str(x.message) for x in w]))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * float("inf")).sum().backward()
    out.append(_error(lambda: lib.nn.utils.clip_grad_norm_([x], 1.0, error_if_nonfinite=True)))
    out.append(lib.nn.utils.get_total_norm([lib.tensor([3.0]), lib.tensor([4.0])]).item())
    lin = lib.nn.Linear(2, 2)
    vec = lib.nn.utils.parameters_to_vector(lin.parameters())
    out.append((tuple(vec.shape), vec.grad_fn.name(),
                vec.tolist() == lin.weight.flatten().tolist() + lin.bias.tolist()))
    lib.nn.utils.vector_to_parameters(lib.arange(6.0), lin.parameters())
    out.append((lin.weight.tolist(), lin.bias.tolist(), type(lin.weight).__name__))
    out.append(_error(lambda: lib.nn.utils.vector_to_parameters([1.0], lin.parameters())))
    return out


@pytest.mark.torch
def test_clip_grad_and_vectors_match_torch():
    torch = _torch()
    ref, got = _clip_trace(torch), _clip_trace(minigrad)
    for a, b in zip(got, ref):
        assert _same(a, b), (a, b)
    assert len(got) == len(ref)
