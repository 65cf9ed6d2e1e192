"""m30: Variable._execution_engine.queue_callback: when final callbacks run.

Intent: callbacks queued from hooks run after the whole graph is done (after
the post-accumulate hooks), in FIFO order, and a callback queued from a
callback runs in the same pass. Callbacks are per-pass (a second backward has
none left over). Queueing outside backward is an error.
"""
import torch
from torch.autograd import Variable

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
z = y * 3

def cb(name):
    def f():
        print("  callback", name, "x.grad", None if x.grad is None else r(x.grad))
    return f

def on_z(g):
    print("  hook z")
    Variable._execution_engine.queue_callback(cb("A (from z hook)"))
    def chained():
        print("  callback B (from z hook) queues C")
        Variable._execution_engine.queue_callback(cb("C (from callback B)"))
    Variable._execution_engine.queue_callback(chained)

def on_y(g):
    print("  hook y")
    Variable._execution_engine.queue_callback(cb("D (from y hook)"))

z.register_hook(on_z)
y.register_hook(on_y)
x.register_post_accumulate_grad_hook(lambda p: print("  post-acc x", r(p.grad)))
print("pass 1")
z.sum().backward(retain_graph=True)
print("pass 2 (hooks queue again)")
z.sum().backward()
show_err("queue_callback outside backward", lambda: Variable._execution_engine.queue_callback(cb("E")))
