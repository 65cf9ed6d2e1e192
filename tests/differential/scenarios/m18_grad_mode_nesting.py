"""m18: no_grad / enable_grad / set_grad_enabled nested, as contexts and decorators.

Intent: grad mode is a stack-like thread-local flag. Inner contexts win, exits
restore the outer value (even on exceptions), set_grad_enabled works both as a
function call and a context manager, and the decorators wrap each call.
"""
import torch

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

x = torch.tensor([1.], requires_grad=True)

def report(label):
    y = x * 2
    print(f"{label:<40} is_grad_enabled={torch.is_grad_enabled()} y.requires_grad={y.requires_grad}")

report("top level")
with torch.no_grad():
    report("no_grad")
    with torch.enable_grad():
        report("no_grad > enable_grad")
        with torch.no_grad():
            report("no_grad > enable_grad > no_grad")
        report("back in enable_grad")
    with torch.set_grad_enabled(True):
        report("no_grad > set_grad_enabled(True)")
    report("back in no_grad")
report("back at top")
with torch.set_grad_enabled(False):
    report("set_grad_enabled(False)")
report("after set_grad_enabled(False) context")

torch.set_grad_enabled(False)
report("after set_grad_enabled(False) call")
torch.set_grad_enabled(True)
report("after set_grad_enabled(True) call")

@torch.no_grad()
def f_no_grad():
    report("inside @no_grad()")
    return x * 3

@torch.enable_grad()
def f_enable_grad():
    report("inside @enable_grad()")
    return x * 3

out = f_no_grad()
print("@no_grad result requires_grad", out.requires_grad)
with torch.no_grad():
    out = f_enable_grad()
    print("@enable_grad under no_grad result requires_grad", out.requires_grad)
    report("after decorated call, still no_grad")

@torch.set_grad_enabled(False)
def f_set_false():
    report("inside @set_grad_enabled(False)")
f_set_false()
report("after @set_grad_enabled(False)")

def raises():
    with torch.no_grad():
        raise ValueError("inside no_grad")
show_err("exception in no_grad", raises)
report("after exception")

with torch.no_grad():
    y = x * 2
z = y * x
print("z from a no_grad y: requires_grad", z.requires_grad, z.grad_fn.name(),
      [(None if n is None else n.name(), k) for n, k in z.grad_fn.next_functions])
