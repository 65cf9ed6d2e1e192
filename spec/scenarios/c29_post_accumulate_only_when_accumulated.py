CLAIM = "A post-accumulate-grad hook fires only when a gradient was accumulated into .grad."
VERDICT = "false"
SOURCES = (
    ("The pull request adding post-accumulate-grad hooks describes them as running after .grad"
     " has been updated.",
     "https://github.com/pytorch/pytorch/pull/107063"),
    ("An issue on AccumulateGrad returning early, before some hooks, when the incoming "
     "gradient is None.",
     "https://github.com/pytorch/pytorch/issues/60796"),
)
WHY = (
    "A post-hook on a grad_fn may return None in place of a gradient: the edge then "
    "carries an undefined gradient. The engine still counts the edge as delivered, so "
    "the leaf's AccumulateGrad node becomes ready and runs. Its tensor hooks are called "
    "with None, AccumulateGrad adds nothing, and the post-accumulate-grad hooks, which "
    "run at the end of AccumulateGrad whatever it accumulated, fire with .grad still None. "
    "A hook that reads param.grad (an optimizer step in the hook, say) must expect None."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (None,) * len(grad_inputs))
    x.register_hook(lambda g: out.append(f"x tensor hook got {L(g)}"))
    x.register_post_accumulate_grad_hook(
        lambda p: out.append(f"x post-accumulate hook: x.grad = {L(p.grad)}"))
    y.sum().backward()
    out.append(f"after backward: x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert "x post-accumulate hook: x.grad = None" in trace, \
        "the post-accumulate hook fires although nothing was accumulated:\n" + "\n".join(trace)
    assert trace[-1] == "after backward: x.grad = None"
