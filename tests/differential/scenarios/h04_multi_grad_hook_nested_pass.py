"""h04: a mode="all" multi-grad hook whose pass is interrupted by a nested one.

Lesson 05. The hook keeps the gradients and the count so far per pass (by graph task
id), but the number of calls it waits for is one value shared by every pass, set when a
pass's first inner hook fires. A hook on b (after the multi-grad hook's own) runs
autograd.grad(a.sum(), x): the nested pass reaches only a, sets the expected number to
1 and gets its call with [grad, None]; the outer pass then counts 2 of an expected 1, so
its fn never fires. The trap: an expected number kept per pass, which calls fn twice.
"""
import torch
from torch.autograd.graph import register_multi_grad_hook

log = []
x = torch.tensor([1., 2.], requires_grad=True)
a = x * 2
b = x * 3
c = b.sin()
register_multi_grad_hook((a, b), lambda grads: log.append(
    f"fn: {[None if g is None else g.tolist() for g in grads]}"))


def nested(grad):
    log.append("b's second hook: nested autograd.grad(a.sum(), x)")
    with torch.enable_grad():
        (g,) = torch.autograd.grad(a.sum(), x, retain_graph=True)
    log.append(f"nested pass returned {g.tolist()}")


b.register_hook(nested)
a.register_hook(lambda g: log.append("a's hook"))
(a * c).sum().backward()
log.append(f"outer backward returned, x.grad = {[round(v, 4) for v in x.grad.tolist()]}")
print("\n".join(log))
