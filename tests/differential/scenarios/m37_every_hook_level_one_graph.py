"""m37: Every hook level on one small graph, in firing order.

Intent: one trace that shows the relative order of tensor hooks, retain_grad,
node pre-hooks, node post-hooks, multi-grad hooks, post-accumulate-grad hooks
and queued final callbacks, for two leaves and two intermediate tensors.
Per node: tensor hooks -> (retain_grad) -> node pre-hooks -> node -> post-hooks.
"""
import torch
from torch.autograd import Variable
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


a = torch.tensor([0.5, 1.], requires_grad=True)
b = torch.tensor([1., -0.5], requires_grad=True)
h = a * b
h.retain_grad()
o = h.tanh()
loss = o.sum()

def say(*msg):
    print("  " + " ".join(str(m) for m in msg))

for name, t in (("a", a), ("b", b), ("h", h), ("o", o)):
    t.register_hook(lambda g, name=name: say("tensor hook", name, r(g)))
for name, t in (("h", h), ("o", o), ("loss", loss)):
    t.grad_fn.register_prehook(lambda go, name=name: say("node pre-hook", name))
    t.grad_fn.register_hook(lambda gi, go, name=name: say("node post-hook", name))
for name, t in (("a", a), ("b", b)):
    t.register_post_accumulate_grad_hook(lambda p, name=name: say("post-acc hook", name, r(p.grad)))
    acc = h.grad_fn.next_functions[0 if name == "a" else 1][0]
    acc.register_prehook(lambda go, name=name: say("AccumulateGrad pre-hook", name))
    acc.register_hook(lambda gi, go, name=name: say("AccumulateGrad post-hook", name))
register_multi_grad_hook((a, h), lambda gs: say("multi-grad hook (a, h)",
                                                [None if g is None else r(g) for g in gs]))
register_multi_grad_hook((b, o), lambda gs: say("multi-grad hook (b, o) any", r(gs)), mode="any")
o.register_hook(lambda g: Variable._execution_engine.queue_callback(lambda: say("final callback")))

print("backward:")
loss.backward()
print("h.grad", r(h.grad), "a.grad", r(a.grad), "b.grad", r(b.grad))
