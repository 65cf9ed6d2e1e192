CLAIM = ("Only the innermost saved_tensors_hooks pair applies, and the pair is captured when "
         "the tensor is saved, not when it is used.")
VERDICT = "true"
SOURCES = (
    ("The autograd notes introduce saved_tensors_hooks and say what pack and unpack receive; "
     "the nesting rule (innermost pair wins, bound at save time) is what this notebook checks.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
    ("The pull request that documented saved-tensor hooks, with the review discussing what "
     "pack and unpack may do.",
     "https://github.com/pytorch/pytorch/pull/62362"),
)
WHY = (
    "saved_tensors_hooks pushes its (pack, unpack) pair on a thread-local stack. When an op "
    "saves a tensor for backward, only the top of that stack is consulted: pack runs right "
    "then (under no_grad) and the unpack hook is stored inside that saved value. Outer pairs "
    "are not chained. At backward time the engine unpacks each saved value with the unpack "
    "hook stored in it, so leaving the context before backward changes nothing, and a pair "
    "that is active only during backward is never called for tensors saved earlier."
)


def run(torch):
    from ._util import L
    out = []
    hooks = torch.autograd.graph.saved_tensors_hooks

    def pair(tag):
        def pack(t):
            out.append(f"pack[{tag}] {L(t)}")
            return t

        def unpack(t):
            out.append(f"unpack[{tag}] {L(t)}")
            return t
        return pack, unpack

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with hooks(*pair("outer")):
        a = x.exp()                      # saves its result -> packed by "outer"
        with hooks(*pair("inner")):
            b = x.tanh()                 # saves its result -> packed by "inner" only
    out.append("forward done, both contexts closed")
    loss = a.sum() + b.sum()
    with hooks(*pair("late")):           # active during backward only
        loss.backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    from ._util import index_of
    packs = [t for t in trace if t.startswith("pack")]
    assert packs == ["pack[outer] [1.0, 2.7183]", "pack[inner] [0.0, 0.7616]"], \
        f"exp must be packed by the outer pair only, tanh by the inner only: {packs}"
    done = index_of(trace, "forward done")
    unpacks = [t for t in trace[done:] if t.startswith("unpack")]
    assert sorted(unpacks) == ["unpack[inner] [0.0, 0.7616]", "unpack[outer] [1.0, 2.7183]"], \
        f"each saved value must be unpacked by the pair active at pack time: {unpacks}"
    assert not any("[late]" in t for t in trace), "a pair active only during backward is never used"
    assert "x.grad = [2.0, 3.1383]" in trace, "gradient must be exp(x) + 1 - tanh(x)^2"
