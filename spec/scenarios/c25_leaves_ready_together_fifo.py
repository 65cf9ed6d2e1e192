CLAIM = "Leaves that become ready together run first-in first-out."
VERDICT = "false"
SOURCES = (
    ("Until 2018 the engine's ready queue was a first-in first-out deque; this pull request "
     "replaced it with a priority queue.",
     "https://github.com/pytorch/pytorch/pull/4746"),
    ("AccumulateGrad nodes all get the highest priority (the same number), so they tie.",
     "https://github.com/pytorch/pytorch/pull/7604"),
    ("A recent request for a stricter, predictable execution order: today's order among ready "
     "nodes is only opportunistic.",
     "https://github.com/pytorch/pytorch/issues/198225"),
)
WHY = (
    "When one node hands gradients to several leaves in the same step, all their "
    "AccumulateGrad nodes become ready together, and they all carry the same sequence "
    "number: the largest one, so that a leaf is accumulated as soon as it can be. The ready "
    "queue is a binary max-heap (C++'s std::priority_queue), and a heap does not keep "
    "insertion order among equal keys: which tie pops next depends on where push_heap and "
    "pop_heap happened to move the items in the array. The order is deterministic (the "
    "same for the same pushes) but it is neither first-in first-out nor last-in first-out: "
    "six leaves pushed as 0..5 are accumulated as 0, 2, 5, 4, 1, 3."
)


def run(torch):
    out = []
    for n in (2, 3, 4, 5, 6):
        order = []
        leaves = [torch.tensor([float(i)], requires_grad=True) for i in range(n)]
        for i, leaf in enumerate(leaves):
            leaf.register_post_accumulate_grad_hook(lambda p, i=i: order.append(i))
        torch.stack(leaves).sum().backward()     # StackBackward0 readies every leaf at once
        out.append(f"stack of {n} leaves (pushed 0..{n - 1}): accumulated {order}")
    return out


def check(trace):
    import ast
    orders = [ast.literal_eval(t.split("accumulated ")[1]) for t in trace]
    assert orders[-1] == [0, 2, 5, 4, 1, 3], "six tied leaves pop in the heap's order"
    assert any(order != sorted(order) for order in orders), \
        "first-in first-out would give 0, 1, 2, ... for every stack"
    assert all(order != sorted(order, reverse=True) for order in orders), \
        "and it is not last-in first-out either"
