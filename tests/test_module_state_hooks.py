"""Module hook levels outside a call (state_dict, load_state_dict, registration) and the
order of a call's steps, checked on minigrad alone. The same behaviours are compared
with PyTorch in tests/differential/scenarios/o01-o03 and tests/compat/scripts/c81-c89."""
import pytest

import minigrad
from minigrad import nn
from minigrad.nn.modules import module as module_mod


def _net():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1), nn.BatchNorm1d(1)))
    with minigrad.no_grad():
        for p in net.parameters():
            p.copy_(minigrad.linspace(-1, 1, p.numel()).reshape(p.shape))
    return net


def test_state_dict_hooks_run_pre_outer_first_and_post_inner_first():
    net, log = _net(), []
    for name, m in (("root", net), ("inner", net[1]), ("bn", net[1][1])):
        m.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars, name=name: log.append(("pre", name, prefix)))
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, md, name=name: log.append(("post", name, prefix, md["version"])))
    sd = net.state_dict()
    assert log == [("pre", "root", ""), ("pre", "inner", "1."), ("pre", "bn", "1.1."),
                   ("post", "bn", "1.1.", 2), ("post", "inner", "1.", 1), ("post", "root", "", 1)]
    assert dict(sd._metadata) == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 1},
                                  "1.0": {"version": 1}, "1.1": {"version": 2}}


def test_state_dict_post_hook_return_values():
    net = _net()
    h = net.register_state_dict_post_hook(lambda m, sd, p, md: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        net.state_dict()
    h.remove()
    h = net._register_state_dict_hook(lambda m, sd, p, md: {"replaced": True})   # private form: respected
    assert net.state_dict() == {"replaced": True}
    h.remove()
    # a child's private hook replaces what the child's own state_dict() returns, but the
    # parent keeps filling its own dict (it does not adopt the child's return value)
    net[1]._register_state_dict_hook(lambda m, sd, p, md: {"child": True})
    assert net[1].state_dict() == {"child": True}
    assert list(net.state_dict()) == list(_net().state_dict())        # 0.weight ... 1.1.num_batches_tracked


def test_load_pre_hooks_run_on_every_module_with_its_prefix():
    net, seen = _net(), []
    for name, m in (("root", net), ("inner", net[1]), ("bn", net[1][1])):
        m.register_load_state_dict_pre_hook(
            lambda module, sd, prefix, md, strict, missing, unexpected, errors, name=name, m=m:
            seen.append((name, module is m, prefix, dict(md))))
    net.load_state_dict(net.state_dict())
    assert seen == [("root", True, "", {"version": 1}), ("inner", True, "1.", {"version": 1}),
                    ("bn", True, "1.1.", {"version": 2})]          # what PyTorch 2.13 gives


def test_load_pre_hook_renames_keys_without_touching_the_callers_dict():
    src, dst = _net(), nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1), nn.BatchNorm1d(1)))
    old = {k.replace("0.", "first.", 1) if k.startswith("0.") else k: v for k, v in src.state_dict().items()}
    seen = []

    def rename(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        seen.append((prefix, local_metadata, strict))
        for key in [k for k in state_dict if k.startswith("first.")]:
            state_dict["0." + key[len("first."):]] = state_dict.pop(key)

    dst.register_load_state_dict_pre_hook(rename)
    result = dst.load_state_dict(old, strict=False)
    assert (result.missing_keys, result.unexpected_keys) == ([], [])
    assert seen == [("", {}, True)]          # no _metadata in a plain dict; strict is always True here
    assert "first.weight" in old
    assert dst[0].weight.tolist() == src[0].weight.tolist()


def test_load_errors_and_post_hooks():
    net = _net()
    sd = net.state_dict()
    del sd["0.bias"]
    sd["0.extra"] = minigrad.ones(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == ('Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in '
                               'state_dict: "0.bias". \n\tUnexpected key(s) in state_dict: "0.extra". ')
    seen = []

    def forgive(module, keys):
        seen.append((list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()

    net.register_load_state_dict_post_hook(forgive)
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert seen == [(["0.bias"], ["0.extra"])]
    net.register_load_state_dict_post_hook(lambda m, keys: "a value")
    with pytest.raises(AssertionError, match="not expected to return new values"):
        net.load_state_dict(net.state_dict())


def test_load_copies_in_place_or_assigns():
    net, other = _net(), nn.Linear(2, 2)
    weight = other.weight
    other.load_state_dict(net[0].state_dict())
    assert other.weight is weight and weight._version > 1
    src = net[0].state_dict()
    other.load_state_dict(src, assign=True)
    assert other.weight is not weight and isinstance(other.weight, nn.Parameter)
    assert other.weight.requires_grad


def test_registration_hooks_see_and_replace_values():
    log = []
    replacement = nn.Parameter(minigrad.zeros(2))

    def on_param(module, name, param):
        log.append(("param", name))
        return replacement if name == "w" else None

    hooks = [module_mod.register_module_parameter_registration_hook(on_param),
             module_mod.register_module_buffer_registration_hook(lambda m, n, b: log.append(("buffer", n))),
             module_mod.register_module_module_registration_hook(lambda m, n, s: log.append(("module", n)))]
    try:
        m = nn.Module()
        m.w = nn.Parameter(minigrad.ones(2))
        m.register_parameter("none", None)
        m.register_buffer("b", None)
        m.sub = nn.ReLU()
        m.add_module("gone", None)
    finally:
        for h in hooks:
            h.remove()
    assert m.w is replacement
    assert log == [("param", "w"), ("buffer", "b"), ("module", "sub"), ("module", "gone")]
    m.v = nn.Parameter(minigrad.ones(1))
    assert len(log) == 4


def test_backward_hooks_are_chosen_before_the_forward_pre_hooks_run():
    """_call_impl's first step: a pre-hook that registers a backward hook acts at the next call."""
    lin, log = nn.Linear(2, 1), []

    def pre(module, args):
        if not log:
            module.register_full_backward_hook(lambda *a: log.append("backward hook"))
        log.append("pre")

    lin.register_forward_pre_hook(pre)
    lin(minigrad.ones(1, 2, requires_grad=True)).sum().backward()
    assert log == ["pre"]
    lin(minigrad.ones(1, 2, requires_grad=True)).sum().backward()
    assert log == ["pre", "pre", "backward hook"]
