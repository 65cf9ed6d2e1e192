"""e01: AccumulateGrad steals the incoming gradient when nothing else holds it.

Intent: the first gradient a leaf receives becomes its .grad without a copy
when no one but the engine refers to it and it is laid out like the leaf
(PyTorch's accumulate_grad.h). Traps: a tensor a hook returned and forgot IS
.grad's storage (but .grad is a new Tensor object, a detached alias), a
tensor the user still holds is copied, an alias of a held tensor is not
"held" (PyTorch counts Tensor references, not storage ones), an expanded
gradient (sum's backward) is copied, create_graph copies; a
post-accumulate hook editing p.grad in place is seen by the AccumulateGrad
node's post hooks through grad_outputs; a .grad assigned in a
post-accumulate hook is what stays.
"""
import weakref

import torch
import warnings

def r(t, n=4):
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

print("1. a tensor hook's forgotten result becomes .grad's storage")
x = torch.tensor([1., 2.], requires_grad=True)
seen = {}
def hook(g):
    out = g * 10
    # a weak reference, not id(): a freed object's id can be reused by .grad's
    seen["ptr"], seen["ref"] = out.data_ptr(), weakref.ref(out)
    return out
x.register_hook(hook)
(x * 3).sum().backward()
print("  same storage", x.grad.data_ptr() == seen["ptr"], "same object", x.grad is seen["ref"](), r(x.grad))

print("2. a result the hook also keeps is copied")
x = torch.tensor([1., 2.], requires_grad=True)
kept = []
def keeping(g):
    out = g * 10
    kept.append(out)
    return out
x.register_hook(keeping)
(x * 3).sum().backward()
print("  same storage", x.grad.data_ptr() == kept[0].data_ptr())
kept[0].mul_(0)
print("  x.grad unaffected", r(x.grad))

print("3. a hook that keeps its argument: copied")
x = torch.tensor([1., 2.], requires_grad=True)
args = []
x.register_hook(lambda g: args.append(g))
(x * 3).sum().backward()
print("  same storage", x.grad.data_ptr() == args[0].data_ptr())

print("4. a gradient the caller holds, passed through an addition: copied")
x = torch.tensor([1., 2.], requires_grad=True)
g = torch.tensor([5., 6.])
(x + 1).backward(g)
print("  same storage", x.grad.data_ptr() == g.data_ptr())
x = torch.tensor([1., 2.], requires_grad=True)
x.backward(g)
print("  leaf.backward(g): same storage", x.grad.data_ptr() == g.data_ptr())

print("5. an alias (detach) of a held tensor is stolen: storage is shared")
x = torch.tensor([1., 2.], requires_grad=True)
held = torch.tensor([1., 1.])
x.register_hook(lambda g: held.detach())
(x * 3).sum().backward(retain_graph=True)
print("  shares held's storage", x.grad.data_ptr() == held.data_ptr())
(x * 3).sum().backward()
print("  second pass accumulates in place, into held too:", r(x.grad), r(held))

print("6. an expanded gradient (sum) is copied; later passes still accumulate")
x = torch.tensor([1., 2.], requires_grad=True)
x.sum().backward()
x.sum().backward()
print("  ", r(x.grad))

print("7. post-accumulate hook edits p.grad in place; node post hook sees it")
p = torch.tensor([1., 2.], requires_grad=True)
def scale(t):
    t.grad.mul_(100)
p.register_post_accumulate_grad_hook(scale)
acc = p.view_as(p).grad_fn.next_functions[0][0]
acc.register_prehook(lambda go: print("  pre hook grad_outputs", [r(g) for g in go]))
acc.register_hook(lambda gi, go: print("  post hook grad_inputs", gi, "grad_outputs", [r(g) for g in go]))
(p * 3).sum().backward()
print("  p.grad", r(p.grad))
(p * 3).sum().backward()
print("  second pass (accumulated in place, then scaled)", r(p.grad))

print("8. .grad assigned in a post-accumulate hook stays")
p = torch.tensor([1., 2.], requires_grad=True)
def assign(t):
    t.grad = torch.tensor([7., 7.])
p.register_post_accumulate_grad_hook(assign)
acc = p.view_as(p).grad_fn.next_functions[0][0]
acc.register_hook(lambda gi, go: print("  post hook grad_outputs", [r(g) for g in go], "p.grad", r(p.grad)))
(p * 3).sum().backward()
print("  p.grad", r(p.grad))

print("9. a leaf tensor hook's result, seen by the node's post hook")
p = torch.tensor([1., 2.], requires_grad=True)
ptrs = {}
def plus_one(g):
    out = g + 1
    ptrs["out"] = out.data_ptr()
    return out
p.register_hook(plus_one)
acc = p.view_as(p).grad_fn.next_functions[0][0]
acc.register_hook(lambda gi, go: print("  grad_outputs[0] is .grad's storage",
                                       go[0].data_ptr() == p.grad.data_ptr(),
                                       "and the hook's", go[0].data_ptr() == ptrs["out"]))
(p * 3).sum().backward()
print("  p.grad", r(p.grad), "version", p.grad._version)

print("10. a pre hook's replacement is stolen too")
p = torch.tensor([1., 2.], requires_grad=True)
acc = p.view_as(p).grad_fn.next_functions[0][0]
def pre(go):
    out = go[0] * 2
    ptrs["pre"] = out.data_ptr()
    return (out,)
acc.register_prehook(pre)
(p * 3).sum().backward()
print("  same storage", p.grad.data_ptr() == ptrs["pre"], r(p.grad))

print("11. create_graph copies (and records the copy)")
p = torch.tensor([1., 2.], requires_grad=True)
def times_one(g):
    out = g * 1
    ptrs["cg"] = out.data_ptr()
    return out
p.register_hook(times_one)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    (p * p).sum().backward(create_graph=True)
print("  same storage", p.grad.data_ptr() == ptrs["cg"], type(p.grad.grad_fn).__name__, r(p.grad))
