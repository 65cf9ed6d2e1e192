CLAIM = ("A multi-grad hook fires once per backward; in mode=\"any\" it gets only the "
         "first gradient.")
VERDICT = "partly true"
SOURCES = (
    ("The design discussion of multi-grad hooks: fn is called once, when the gradients of all "
     "the tensors the pass reaches have been computed.",
     "https://github.com/pytorch/pytorch/issues/83617"),
    ("The pull request that added mode=\"any\": fn runs when the gradient of any one tensor is "
     "computed.",
     "https://github.com/pytorch/pytorch/pull/117984"),
)
WHY = (
    "register_multi_grad_hook puts one ordinary tensor hook on each tensor. In mode=\"any\" "
    "the first of them to fire in a graph task calls fn with that gradient and the others "
    "stay silent: true. In mode=\"all\" the hooks count calls and fn runs when the count "
    "reaches the number of tensors the engine is expected to visit, with None for tensors "
    "that get no gradient. That number is computed by asking the engine which grad_fns "
    "will execute, and the graph root itself is not in that set: when backward() is called "
    "directly on one of the registered tensors, the count is too small and fn fires "
    "several times, each with a partial list. So \"once per backward\" fails in that case."
)


def run(torch):
    from ._util import L
    out = []
    register = torch.autograd.graph.register_multi_grad_hook

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    p = x * 2          # created first
    q = x * 3          # created second: its node runs first
    h = register((p, q), lambda gs: out.append(f"  all fn: {L(gs)}"))
    out.append("mode=all, both used:")
    (p * 1 + q * 5).sum().backward(retain_graph=True)
    out.append("mode=all, only p used:")
    (p * 7).sum().backward(retain_graph=True)
    h.remove()

    h = register((p, q), lambda g: out.append(f"  any fn: {L(g)}"), mode="any")
    out.append("mode=any, both used (q's node runs first):")
    (p * 1 + q * 5).sum().backward(retain_graph=True)
    h.remove()

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a2 = a * 1
    c = a2 * 3
    register((a2, c), lambda gs: out.append(f"  all fn: {L(gs)}"))
    out.append("mode=all, backward called on c itself (c.grad_fn is the graph root):")
    c.backward(torch.ones(2), retain_graph=True)
    out.append("mode=all, c.sum().backward():")
    c.sum().backward()
    return out


def check(trace):
    from ._util import index_of

    def section(title):
        start = index_of(trace, title)
        end = next((i for i in range(start + 1, len(trace)) if not trace[i].startswith("  ")),
                   len(trace))
        return trace[start + 1:end]

    assert section("mode=all, both used") == ["  all fn: [[1.0, 1.0], [5.0, 5.0]]"], \
        "mode=all: one call with every gradient"
    assert section("mode=all, only p used") == ["  all fn: [[7.0, 7.0], None]"], \
        "mode=all: one call, None for the tensor that got no gradient"
    assert section("mode=any, both used") == ["  any fn: [5.0, 5.0]"], \
        "mode=any: one call with the first gradient computed (q's)"
    quirk = section("mode=all, backward called on c itself")
    assert len(quirk) == 2, f"root quirk: fn must fire twice with partial lists, got {quirk}"
    assert quirk == ["  all fn: [None, [1.0, 1.0]]", "  all fn: [[3.0, 3.0], None]"], quirk
    assert section("mode=all, c.sum().backward()") == ["  all fn: [[3.0, 3.0], [1.0, 1.0]]"]
