CLAIM = ("When several nodes are ready, the one created last runs first, and AccumulateGrad "
         "runs as soon as it can.")
VERDICT = "true"
SOURCES = (
    ("The pull request that replaced the engine's first-in first-out queue by a priority queue"
     " on creation time, so that the most recent node runs first.",
     "https://github.com/pytorch/pytorch/pull/4746"),
    ("The pull request that gave AccumulateGrad the highest priority.",
     "https://github.com/pytorch/pytorch/pull/7604"),
    ("The sequence-number note in the engine, and a maintainer's reason for running "
     "AccumulateGrad as soon as possible.",
     "https://github.com/pytorch/pytorch/pull/52180"),
)
WHY = (
    "The engine's ready queue is a priority queue ordered by each node's sequence number, "
    "a counter that increases every time a node is created in forward. So among ready "
    "nodes the most recently created one runs next: a rough reverse of the forward order, "
    "not a depth-first or breadth-first walk. AccumulateGrad nodes get the largest possible "
    "sequence number, so a leaf is accumulated as soon as its gradient is complete, ahead "
    "of every other ready node. Because every AccumulateGrad node has that same number, "
    "several leaves that become ready together tie, and the tie is broken by the layout of "
    "the binary heap (C++'s std::priority_queue), not by the order they arrived in (see c25)."
)


def run(torch):
    out = []
    w1 = torch.tensor([1.0], requires_grad=True)
    w2 = torch.tensor([2.0], requires_grad=True)
    t1 = w1 * 2        # node 1
    t2 = w2 * 3        # node 2
    t3 = t1 * 4        # node 3 (created last)
    for name, t in (("t1 = w1*2", t1), ("t2 = w2*3", t2), ("t3 = t1*4", t3)):
        t.grad_fn.register_prehook(lambda go, name=name: out.append(f"run {name}"))
    w1.register_post_accumulate_grad_hook(lambda p: out.append("accumulate w1"))
    w2.register_post_accumulate_grad_hook(lambda p: out.append("accumulate w2"))
    (t2 + t3).sum().backward()
    return out


def check(trace):
    assert trace == ["run t3 = t1*4", "run t2 = w2*3", "accumulate w2",
                     "run t1 = w1*2", "accumulate w1"], \
        ("expected: t3 before t2 (created last runs first), then w2's AccumulateGrad "
         "before the still-ready t1:\n" + "\n".join(trace))
