CLAIM = "grad_fn(*grad_outputs) replays the backward computation."
VERDICT = "partly true"
SOURCES = (
    ("We found no public page stating it; the PyTorch page on the topic is the autograd notes.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "Calling a node directly runs only its own backward formula (apply) on the gradients "
    "you pass, and returns one result per next edge. It is not an engine run: no tensor "
    "hooks, node pre- or post-hooks, no accumulation into .grad, nothing further down the "
    "graph. Even the engine's output validation is skipped, and that is where a broadcast "
    "operand's gradient is summed back to the operand's shape, so the result can have the "
    "wrong shape. It also needs the saved tensors, so it fails once the graph was freed."
)


def run(torch):
    from ._util import L, try_call
    out = []
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)        # 0-dim, broadcast against a
    c = a * w
    c.register_hook(lambda g: out.append("  c tensor hook"))
    c.grad_fn.register_prehook(lambda go: out.append("  grad_fn prehook"))
    c.grad_fn.register_hook(lambda gi, go: out.append(f"  grad_fn post-hook gi = {L(gi)}"))

    out.append("direct call c.grad_fn(ones(2)):")
    res = c.grad_fn(torch.ones(2))
    out.append(f"  returned {L(res)}, shapes {[list(r.shape) for r in res]}")
    out.append(f"  a.grad = {L(a.grad)}, w.grad = {L(w.grad)}")

    out.append("engine run c.backward(ones(2)):")
    c.backward(torch.ones(2))
    out.append(f"  a.grad = {L(a.grad)}, w.grad = {L(w.grad)}")
    out.append(try_call("direct call after the graph was freed", lambda: c.grad_fn(torch.ones(2))))
    return out


def check(trace):
    from ._util import index_of
    eng = index_of(trace, "engine run")
    direct = trace[:eng]
    assert direct[1] == "  returned [[3.0, 3.0], [1.0, 2.0]], shapes [[2], [2]]", \
        "the direct call computes the formula but does not reduce w's gradient to shape []"
    assert not any("hook" in t for t in direct), "a direct call runs no hooks"
    assert direct[2] == "  a.grad = None, w.grad = None", "and accumulates nothing"
    engine = trace[eng:]
    assert "  grad_fn post-hook gi = [[3.0, 3.0], 3.0]" in engine, \
        "under the engine the hooks run and w's gradient is summed to shape []"
    assert "  a.grad = [3.0, 3.0], w.grad = 3.0" in engine
    assert trace[-1].startswith("direct call after the graph was freed -> RuntimeError: "
                                "Trying to backward through the graph a second time"), trace[-1]
