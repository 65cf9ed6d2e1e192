"""m17: Integer tensors and the errors around requires_grad and backward.

Intent: integer tensors are allowed as data and indices but can never require
grad (three spellings of the same error); int results of comparisons do not
require grad; backward on a tensor without grad_fn, and on a non-scalar
without a gradient argument, fail with PyTorch's messages.
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

i = torch.tensor([1, 2, 3])
print("int tensor dtype is int64:", i.dtype == torch.int64, "requires_grad", i.requires_grad)
show_err("tensor(int data, requires_grad=True)", lambda: torch.tensor([1, 2], requires_grad=True))
show_err("int64 tensor .requires_grad_()", lambda: i.requires_grad_())
def set_attr():
    i.requires_grad = True
show_err("int64 tensor .requires_grad = True", set_attr)
show_err("arange(3) requires_grad", lambda: torch.arange(3).requires_grad_())
print("requires_grad_(False) on int is fine:", i.requires_grad_(False).requires_grad)
# Factories and wrappers word it as tensor() does (capital O, "and complex dtype").
show_err("ones(int64) requires_grad", lambda: torch.ones(2, dtype=torch.int64, requires_grad=True))
show_err("arange(3, requires_grad=True)", lambda: torch.arange(3, requires_grad=True))
show_err("zeros_like(int, requires_grad=True)", lambda: torch.zeros_like(i, requires_grad=True))
show_err("full((2,), 1, requires_grad=True)", lambda: torch.full((2,), 1, requires_grad=True))
show_err("nn.Parameter(int tensor)", lambda: torch.nn.Parameter(i))
show_err("autograd.Variable(int, requires_grad=True)", lambda: torch.autograd.Variable(i, requires_grad=True))
show_err("bool tensor .requires_grad_()", lambda: torch.zeros(2, dtype=torch.bool).requires_grad_())

x = torch.tensor([1., 2., 3.], requires_grad=True)
c = x > 1.5
print("comparison result requires_grad", c.requires_grad, "grad_fn", c.grad_fn, c.tolist())
f = x * i
print("float * int requires_grad", f.requires_grad, "is float32", f.dtype == torch.float32, f.grad_fn.name())
f.sum().backward()
print("x.grad through float*int", r(x.grad))

show_err("backward on tensor without grad", lambda: torch.tensor([1., 2.]).sum().backward())
show_err("backward on non-scalar", lambda: (x * 2).backward())
show_err("backward with mismatched gradient shape",
         lambda: (x * 2).backward(torch.ones(2)))
show_err("register_hook on int tensor", lambda: i.register_hook(lambda g: g))
show_err("retain_grad on tensor without grad", lambda: torch.tensor([1.]).retain_grad())
