"""nn.Module hooks, differential against PyTorch: the same code runs under both
frameworks (``lib`` is ``torch`` or ``minigrad``) and must log the same events.

Weights are made identical by assigning ``nn.Parameter``s. Skips cleanly without torch.
"""
import warnings

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")
LIBS = (torch, minigrad)


def L(ts):
    return [None if t is None else np.round(np.asarray(t.detach().tolist()), 5).tolist() for t in ts]


def both(fn):
    """Run ``fn(lib, log)`` for torch and minigrad; return the two logs."""
    logs = []
    for lib in LIBS:
        log = []
        fn(lib, log)
        logs.append(log)
    return logs


def assert_same(fn):
    t, m = both(fn)
    assert m == t


def _linear(lib, w, b):
    lin = lib.nn.Linear(len(w[0]), len(w))
    lin.weight = lib.nn.Parameter(lib.tensor(w))
    lin.bias = lib.nn.Parameter(lib.tensor(b))
    return lin


W1 = [[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]]
B1 = [0.1, -0.2, 0.3]
W2 = [[1.0, -2.0, 0.5]]
B2 = [0.05]


def test_forward_hook_order_prepend_and_global():
    def run(lib, log):
        mm = lib.nn.modules.module
        m = _linear(lib, W1, B1)
        m.register_forward_pre_hook(lambda mod, a: log.append("pre A"))
        m.register_forward_pre_hook(lambda mod, a: log.append("pre P"), prepend=True)
        m.register_forward_hook(lambda mod, a, o: log.append("fwd A"))
        m.register_forward_hook(lambda mod, a, o: log.append("fwd P"), prepend=True)
        hs = [mm.register_module_forward_pre_hook(lambda mod, a: log.append("global pre")),
              mm.register_module_forward_hook(lambda mod, a, o: log.append("global fwd"))]
        try:
            m(lib.ones(1, 2))
        finally:
            for h in hs:
                h.remove()
        m(lib.ones(1, 2))
    assert_same(run)


def test_replaced_inputs_outputs_and_with_kwargs():
    def run(lib, log):
        m = _linear(lib, W1, B1)
        m.register_forward_pre_hook(lambda mod, a: (a[0] * 2,))
        m.register_forward_pre_hook(lambda mod, a, kw: log.append(("kw", kw)) or (a, kw), with_kwargs=True)
        m.register_forward_hook(lambda mod, a, o: o + 1)
        m.register_forward_hook(lambda mod, a, kw, o: log.append(("out", L([o]), L(a))), with_kwargs=True)
        out = m(lib.tensor([[1.0, 2.0]]))
        log.append(L([out]))
    assert_same(run)


def test_always_call_runs_when_forward_raises():
    def run(lib, log):
        class B(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        b = B()
        b.register_forward_hook(lambda mod, a, o: log.append("normal"))
        b.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
        with pytest.raises(ValueError, match="boom"):
            b(lib.ones(1))
    assert_same(run)


def test_full_backward_pre_and_post_values_and_replacements():
    def run(lib, log):
        m = _linear(lib, W1, B1)
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", L(go))) or (go[0] * 2,))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("post", L(gi), L(go))) or (gi[0] + 1,))
        x = lib.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
        out = m(x)
        log.append(out.grad_fn.name())
        (out * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        log.append(("x.grad", L([x.grad]), "w.grad", L([m.weight.grad]), "b.grad", L([m.bias.grad])))
    assert_same(run)


def test_trigger_rules_and_warning():
    def run(lib, log):
        m = _linear(lib, W1, B1)
        m.register_full_backward_pre_hook(lambda mod, go: log.append("pre"))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", L(gi))))
        x = lib.ones(1, 2)                  # no input requires grad: fires early, warns
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            m(x).sum().backward()
        log.append([str(w.message) for w in ws])
        x = lib.ones(1, 2, requires_grad=True)
        out = m(x).sum()
        lib.autograd.grad(out, [m.weight], retain_graph=True)    # only parameters: no full hook
        log.append("---")
        lib.autograd.grad(out, [x])
        with lib.no_grad():
            m(x)                            # nothing fires later
    assert_same(run)


def test_nested_sequential_backward_order():
    def run(lib, log):
        inner = lib.nn.Sequential(_linear(lib, W1, B1), lib.nn.Tanh())
        root = lib.nn.Sequential(inner, _linear(lib, W2, B2))
        for name, mod in root.named_modules():
            mod.register_full_backward_pre_hook(lambda m, go, name=name: log.append(("pre", name or "root")))
            mod.register_full_backward_hook(lambda m, gi, go, name=name: log.append(("post", name or "root",
                                                                                     L(gi))))
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        root(x).sum().backward()
    t, m = both(run)
    assert m == t
    assert t[0] == ("pre", "root") and t[-1][:2] == ("post", "root")


def test_backward_hook_function_node_and_handles():
    def run(lib, log):
        m = _linear(lib, W1, B1)
        h = m.register_full_backward_hook(lambda *a: None)
        x = lib.ones(1, 2, requires_grad=True)
        out = m(x)
        log.append(out.grad_fn.name())
        log.append(out.grad_fn.next_functions[0][0].name())
        h.remove()
        h.remove()
        log.append(m(x).grad_fn.name())
        with m.register_forward_hook(lambda *a: log.append("ctx hook")):
            m(x)
        m(x)
    assert_same(run)


def test_state_dict_keys_and_load():
    def run(lib, log):
        net = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(),
                                lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(2, 3, bias=False)))
        sd = net.state_dict()
        log.append(list(sd.keys()))
        log.append([tuple(v.shape) for v in sd.values()])
        log.append([n for n, _ in net.named_parameters()])
        log.append([n for n, _ in net.named_modules()])
        log.append([type(c).__name__ for c in net.children()])
        log.append(repr(net.load_state_dict(sd)))
        log.append(repr(net))
        log.append(len(net))
        log.append(type(net[1:]).__name__ + str(len(net[1:])))
        log.append(repr(net[-1][1]))
    assert_same(run)


def test_parameter_repr_and_leafness():
    def run(lib, log):
        p = lib.nn.Parameter(lib.tensor([2.0, 3.0]))
        log.append(repr(p))
        log.append((p.is_leaf, p.requires_grad, isinstance(p, lib.Tensor)))
        log.append(type(p * 2).__name__)
    assert_same(run)


def test_zero_grad_train_eval():
    for lib in LIBS:
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Dropout(0.5))
        net(lib.ones(3, 2)).sum().backward()
        assert all(p.grad is not None for p in net.parameters())
        net.zero_grad()
        assert all(p.grad is None for p in net.parameters())
        net.eval()
        assert not net[1].training
        x = lib.ones(4, 2)
        assert lib.equal(net[1](x), x)
        net.train()
        assert net[1].training


def test_data_parallel_without_gpus_wraps_the_module_as_pytorch_does():
    """On a machine without GPUs PyTorch's nn.DataParallel keeps the module as ``.module``
    (state_dict keys gain ``module.``), sets ``device_ids`` to [] whatever was asked and
    runs the module on the whole batch; checkpoints saved from it need the prefix stripped."""
    def run(lib):
        inner = lib.nn.Linear(2, 1)
        inner.weight = lib.nn.Parameter(lib.tensor([[1.0, -2.0]]))
        inner.bias = lib.nn.Parameter(lib.tensor([0.5]))
        model = lib.nn.DataParallel(inner, device_ids=[0, 1])
        out = model(lib.tensor([[3.0, 1.0]]))
        out.sum().backward()
        plain = lib.nn.Linear(2, 1)
        plain.load_state_dict({k.replace("module.", ""): v for k, v in model.state_dict().items()})
        return (repr(model), model.device_ids, list(model.state_dict()), L([out, inner.weight.grad]),
                L([plain.weight]), lib.nn.parallel.DataParallel is lib.nn.DataParallel)

    assert run(minigrad) == run(torch)
