CLAIM = ("A hook on a leaf runs before the gradient is accumulated into .grad; "
         "a post-accumulate hook runs after it.")
VERDICT = "true"
SOURCES = (
    ("The pull request adding register_post_accumulate_grad_hook: its hook runs after .grad "
     "has been updated.",
     "https://github.com/pytorch/pytorch/pull/107063"),
    ("A maintainer explains that register_hook on a parameter fires before the gradient is "
     "accumulated, which is why a post-accumulate hook was wanted.",
     "https://github.com/pytorch/pytorch/issues/76464"),
)
WHY = (
    "A leaf's gradient is written by its AccumulateGrad node. Hooks registered with "
    "register_hook on the leaf are that node's tensor pre-hooks: they run before apply(), "
    "see the incoming gradient, may replace it, and see .grad still holding the previous "
    "value. register_post_accumulate_grad_hook hooks run inside AccumulateGrad after the "
    "accumulation, receive the leaf itself, and see the updated .grad (this is where "
    "optimizer-in-backward code hooks in)."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    def pre(g):
        out.append(f"  tensor hook: incoming {L(g)}, x.grad = {L(x.grad)}")
        return g * 10

    def post(p):
        out.append(f"  post-accumulate hook: p is x = {p is x}, p.grad = {L(p.grad)}")

    x.register_hook(pre)
    x.register_post_accumulate_grad_hook(post)
    for i in (1, 2):
        out.append(f"backward {i}:")
        (x * 2).sum().backward()
    out.append(f"final x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert trace == [
        "backward 1:",
        "  tensor hook: incoming [2.0, 2.0], x.grad = None",
        "  post-accumulate hook: p is x = True, p.grad = [20.0, 20.0]",
        "backward 2:",
        "  tensor hook: incoming [2.0, 2.0], x.grad = [20.0, 20.0]",
        "  post-accumulate hook: p is x = True, p.grad = [40.0, 40.0]",
        "final x.grad = [40.0, 40.0]",
    ], "tensor hook must see .grad before accumulation (and its result is accumulated); " \
       "post-accumulate hook must see it after:\n" + "\n".join(trace)
