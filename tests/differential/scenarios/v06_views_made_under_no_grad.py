"""v06: a view made under no_grad (or inference_mode) of a tensor that requires grad.

Intent (issue 31 §2): PyTorch reports such a view as a leaf that requires grad
(``requires_grad=True``, ``grad_fn`` None), though no gradient reaches it or its base: an
op on it records a node whose edge to it is ``(None, 0)``, its hooks never run, and
``autograd.grad`` says it was not used. What it refuses:

- modifying the view in place with grad mode on ("A view was created in no_grad mode
  and is being modified inplace with grad mode enabled..."); a view of it made with
  grad mode on says "Output 0 of Slice is a view of a view which was created in
  no_grad mode ...", and ``v[0] = 5`` names Select;
- once the shared memory changed in place (under no_grad too, through the base, the
  view or another view), every read of its ``grad_fn`` ("... its base or another view
  of its base has been modified inplace ..."), and so every op on it with grad mode on;
  it prints as ``grad_fn=<Invalid>``; ``detach()`` and ops under no_grad still work;
- the same with inference_mode's words.

``requires_grad_(False)`` leaves it requiring grad (its base does).
"""
import torch


def show_err(label, fn):
    try:
        result = fn()
        print(label, "->", "no error" if result is None else result)
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def fresh():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


x = fresh()
with torch.no_grad():
    v = x[:2]
    u = x.unsqueeze(0)
    t = x.view(3)
    parts = x.unbind(0)
    y = x * 2
    d = x.detach()[:1]
print("requires_grad:", v.requires_grad, u.requires_grad, t.requires_grad, parts[0].requires_grad,
      y.requires_grad, d.requires_grad)
print("is_leaf:", v.is_leaf, "grad_fn:", v.grad_fn, "_is_view:", v._is_view(), "base is x:", v._base is x)
print("repr:", repr(v))
s = (v * 3).sum()
print("an op on it:", s.grad_fn.name(), s.grad_fn.next_functions[0][0].next_functions)
v.register_hook(lambda g: print("  hook on v ran", g))
s.backward()
print("after backward: v.grad", v.grad, "x.grad", x.grad)
show_err("autograd.grad(v.sum(), v)", lambda: torch.autograd.grad(v.sum(), v))
show_err("v.requires_grad_(False)", lambda: v.requires_grad_(False).requires_grad)

show_err("v.mul_(2), grad mode on", lambda: v.mul_(2))
show_err("u.add_(1), grad mode on", lambda: u.add_(1))
show_err("parts[0].mul_(2), grad mode on", lambda: parts[0].mul_(2))
print("x unchanged:", x.tolist(), "version", x._version)
w = v[:1]
print("a view of v made with grad on:", w.requires_grad, w.grad_fn.name(), w.grad_fn.next_functions)
show_err("w.mul_(2)", lambda: w.mul_(2))
show_err("v[0] = 5", lambda: v.__setitem__(0, 5.0))
show_err("v[:1] = 5", lambda: v.__setitem__(slice(0, 1), 5.0))

with torch.no_grad():
    v.mul_(2)
print("after v.mul_(2) under no_grad: x", x.tolist(), "v.requires_grad", v.requires_grad)
show_err("v.grad_fn", lambda: v.grad_fn)
show_err("v.is_leaf", lambda: v.is_leaf)
show_err("w.grad_fn", lambda: w.grad_fn)
print("repr:", repr(v))
show_err("v.detach()", lambda: v.detach())
show_err("v + 1 under no_grad", lambda: torch.no_grad()(lambda: v + 1)())
show_err("v + 1", lambda: v + 1)
show_err("(v * 2).sum().backward()", lambda: (v * 2).sum().backward())

x = fresh()
with torch.no_grad():
    v = x[:2]
with torch.no_grad():
    x.mul_(2)
show_err("the base changed under no_grad, v.grad_fn", lambda: v.grad_fn)

h = fresh() * 1
with torch.no_grad():
    vh = h[:2]
h.mul_(2)
print("a non-leaf base changed with grad on:", h.grad_fn.name())
show_err("vh.grad_fn", lambda: vh.grad_fn)

x = fresh()
with torch.inference_mode():
    v = x[:2]
print("inference_mode view:", v.requires_grad, v.is_leaf, v.is_inference())
show_err("v.add_(1)", lambda: v.add_(1))
show_err("v[:1].mul_(2)", lambda: v[:1].mul_(2))
with torch.no_grad():
    x.mul_(2)
show_err("v.grad_fn after the base changed", lambda: v.grad_fn)
