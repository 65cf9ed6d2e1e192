"""m22: RemovableHandle as a context manager, for every kind of hook.

Intent: `with t.register_hook(h):` removes the hook on exit (also when the body
raises); remove() is idempotent; removing one handle keeps the order of the
remaining hooks. Covers tensor hooks, post-accumulate hooks, node pre/post hooks
and multi-grad hooks.
"""
import torch
from torch.autograd.graph import register_multi_grad_hook

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2

def run(label):
    print(label)
    x.grad = None
    y.sum().backward(retain_graph=True)

with y.register_hook(lambda g: print("  tensor hook")) as h:
    print("handle from __enter__ is the handle:", type(h).__name__)
    with y.grad_fn.register_prehook(lambda go: print("  node pre-hook")):
        with y.grad_fn.register_hook(lambda gi, go: print("  node post-hook")):
            with x.register_post_accumulate_grad_hook(lambda p: print("  post-acc hook", r(p.grad))):
                with register_multi_grad_hook((x, y), lambda gs: print("  multi hook", len(gs))):
                    run("all five active:")
                run("multi removed:")
            run("post-acc removed:")
        run("node post removed:")
    run("node pre removed:")
run("all removed:")

def body_raises():
    with y.register_hook(lambda g: print("  hook inside failing with-block")):
        raise KeyError("body failed")
show_err("with-block raises", body_raises)
run("after the failing with-block:")

hs = [y.register_hook(lambda g, i=i: print("  hook", i)) for i in range(4)]
hs[1].remove()
hs[1].remove()
with hs[2]:
    pass
hs[2].remove()
run("hooks 0 and 3 remain, in order:")
