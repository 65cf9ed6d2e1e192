CLAIM = "Reentrant and non-reentrant checkpointing fire hooks the same way."
VERDICT = "false"
SOURCES = (
    ("An issue: a parameter's gradient hook ran twice with reentrant checkpointing when the "
     "parameter was also used outside the checkpoint.",
     "https://github.com/pytorch/pytorch/issues/81296"),
    ("The rollout plan of non-reentrant checkpointing, which had to guarantee that gradient "
     "hooks are called once.",
     "https://github.com/pytorch/pytorch/issues/65537"),
    ("The torch.utils.checkpoint documentation, which lists the differences between the "
     "variants.",
     "https://docs.pytorch.org/docs/2.12/checkpoint.html"),
)
WHY = (
    "The two variants build different graphs. use_reentrant=True is a custom Function: "
    "its forward runs fn under no_grad, so tensors made inside fn do not require grad and "
    "a hook cannot even be registered on them; its backward node "
    "(CheckpointFunctionBackward) reruns fn with grad on and calls backward() on that "
    "fresh graph from inside the outer pass, a reentrant pass with its own graph task. "
    "Hooks inside fn therefore live on the recomputed graph and all fire inside that one "
    "node, after the recomputation; a final callback queued there runs when the inner "
    "pass ends, before the outer pass goes on. use_reentrant=False keeps the graph of the "
    "first forward (only the saved tensors are dropped and recomputed on unpack), so hooks "
    "registered in the first forward fire in the ordinary pass, in the ordinary order, "
    "before the recomputation, and their callbacks run at the end of the whole pass. The "
    "gradients are the same."
)


def run(torch):
    import importlib

    from ._util import L, try_call
    checkpoint = importlib.import_module(torch.__name__ + ".utils.checkpoint").checkpoint
    engine = torch.autograd.Variable._execution_engine
    out = []
    runs = [0]

    def fn(x):
        runs[0] += 1
        out.append(f"  fn run {runs[0]}: grad enabled = {torch.is_grad_enabled()}")
        h = x.exp()
        if h.requires_grad:
            def inner_hook(g):
                out.append(f"  hook on h (inside fn): {L(g)}")
                engine.queue_callback(lambda: out.append("  callback queued by the hook on h"))
            h.register_hook(inner_hook)
        return h * 2

    for reentrant in (True, False):
        out.append(f"use_reentrant={reentrant}")
        runs[0] = 0
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        x.register_hook(lambda g: out.append(f"  hook on x: {L(g)}"))
        y = checkpoint(fn, x, use_reentrant=reentrant)
        out.append(f"  y.grad_fn: {y.grad_fn.name()}")
        y.register_hook(lambda g: out.append(f"  hook on y: {L(g)}"))
        y.sum().backward()
        out.append(f"  x.grad = {L(x.grad)}")

    def unconditional(x):
        h = x.exp()
        h.register_hook(lambda g: None)
        return h

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    for reentrant in (True, False):
        out.append(try_call(f"register_hook in fn, use_reentrant={reentrant}",
                            lambda: checkpoint(unconditional, x, use_reentrant=reentrant)))
    return out


def check(trace):
    from ._util import index_of
    r = index_of(trace, "use_reentrant=True")
    n = index_of(trace, "use_reentrant=False")
    re_part, nr_part = trace[r:n], trace[n:]

    def pos(part, prefix):
        return index_of(part, prefix)

    assert re_part[1] == "  fn run 1: grad enabled = False", "reentrant: the first forward has no graph"
    assert nr_part[1] == "  fn run 1: grad enabled = True"
    assert re_part[2] == "  y.grad_fn: CheckpointFunctionBackward"
    # reentrant: recompute first, then the hooks inside fn, then the inner pass's callback, then x
    assert pos(re_part, "  fn run 2") < pos(re_part, "  hook on h") \
        < pos(re_part, "  callback queued") < pos(re_part, "  hook on x")
    # non-reentrant: the hook registered in the first forward fires before the recomputation,
    # and its callback waits for the end of the whole pass
    assert pos(nr_part, "  hook on h") < pos(nr_part, "  fn run 2") \
        < pos(nr_part, "  hook on x") < pos(nr_part, "  callback queued")
    assert re_part[pos(re_part, "  x.grad")] == nr_part[pos(nr_part, "  x.grad")] == \
        "  x.grad = [2.0, 5.4366]", "the gradients are the same"
    assert trace[-2] == ("register_hook in fn, use_reentrant=True -> RuntimeError: cannot register "
                         "a hook on a tensor that doesn't require gradient")
    assert trace[-1] == "register_hook in fn, use_reentrant=False -> no error"
