"""a04: PyTorch's hook-based nn.utils: weight_norm, spectral_norm, parametrize.

Intent: these utilities are built on the hooks minigrad copies. weight_norm and
spectral_norm are forward pre-hooks that set module.weight before each forward (from
weight_g/weight_v, or weight_orig and the u/v buffers of power iteration); they sit in
_forward_pre_hooks next to a user's own pre-hook, in registration order. parametrize turns
the weight into a property recomputed on every access (one graph per access, one with
cached()), swaps the module's class (ParametrizedLinear, in the printed repr), chains
parametrizations and calls right_inverse on assignment. Parameter names, state_dict keys,
values, node names and gradients must match PyTorch's. spectral_norm draws random u and v:
the script overwrites them with fixed values before the first training-mode forward.
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils import parametrizations


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


def r(t, n=4):
    v = t.tolist() if hasattr(t, "tolist") else t

    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)


def linear(bias=True):
    lin = nn.Linear(3, 2, bias=bias)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -2.0, 2.0], [0.5, 3.0, -4.0]]))
        if bias:
            lin.bias.copy_(torch.tensor([0.1, -0.2]))
    return lin


x = torch.tensor([[1.0, 0.5, -1.0], [2.0, -1.0, 0.0]])

print("== weight_norm")
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    m = nn.utils.weight_norm(linear())
print([w.category.__name__ + ": " + str(w.message) for w in ws])
print(m, [name for name, _ in m.named_parameters()], list(m.state_dict()))
print("g", r(m.weight_g), "v", r(m.weight_v), "weight", r(m.weight), m.weight.grad_fn.name())
n = m.weight.grad_fn
print("saved", n._saved_dim, r(n._saved_result1), n._saved_g is m.weight_g, n._saved_v is m.weight_v)
print([type(h).__name__ for h in m._forward_pre_hooks.values()])
m.register_forward_pre_hook(lambda mod, inp: print("  user pre-hook sees weight", r(mod.weight)))
with torch.no_grad():
    m.weight_g.mul_(2.0)
out = m(x)
print("out", r(out))
out.sum().backward()
print("g.grad", r(m.weight_g.grad), "v.grad", r(m.weight_v.grad), "bias.grad", r(m.bias.grad))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    show_err("twice", lambda: nn.utils.weight_norm(m))
    whole = nn.utils.weight_norm(linear(bias=False), dim=None)
    last = nn.utils.weight_norm(linear(bias=False), dim=1)
print("dim=None", r(whole.weight_g), tuple(whole.weight_g.shape), r(whole(x)))
print("dim=1", tuple(last.weight_g.shape), r(last.weight_g), last.weight.grad_fn.name(), r(last(x)))
nn.utils.remove_weight_norm(m)
print("removed", [name for name, _ in m.named_parameters()], r(m.weight), type(m.weight).__name__,
      m.weight.requires_grad, m.weight.grad_fn, len(m._forward_pre_hooks))
show_err("remove again", lambda: nn.utils.remove_weight_norm(m))

print("== spectral_norm")
s = nn.utils.spectral_norm(linear())
print(s, [name for name, _ in s.named_parameters()], [name for name, _ in s.named_buffers()])
print(sorted(s.state_dict()), type(s.weight).__name__, s.weight.requires_grad)
with torch.no_grad():
    s.weight_u.copy_(torch.tensor([0.6, 0.8]))
    s.weight_v.copy_(torch.tensor([1.0, 0.0, 0.0]))
u_before = s.weight_u
out = s(x)
print("train out", r(out), "u", r(s.weight_u), "v", r(s.weight_v), "same buffer", s.weight_u is u_before)
print("weight", r(s.weight), s.weight.grad_fn.name(),
      [f.name() if f is not None else None for f, _ in s.weight.grad_fn.next_functions])
out.sum().backward()
print("weight_orig.grad", r(s.weight_orig.grad))
for _ in range(5):
    s(x)
print("after power iteration: sigma", round(1.0 / (s.weight / s.weight_orig)[0, 0].item(), 4),
      "u", r(s.weight_u))
s.eval()
u_eval = s.weight_u.clone()
print("eval out", r(s(x)), "u unchanged", torch.equal(u_eval, s.weight_u))
sd = s.state_dict()
print("metadata", dict(sd._metadata), sorted(sd))
fresh = nn.utils.spectral_norm(linear())
print(fresh.load_state_dict(sd), r(fresh.weight_u), r(fresh.weight_v))
# A checkpoint from before PyTorch 1.0 (no version, weight instead of weight_v): v is solved
# back from weight_orig, weight and u (a square, invertible weight: v is unique).
square = nn.utils.spectral_norm(nn.Linear(2, 2, bias=False))
old_style = {"weight_orig": torch.tensor([[2.0, 1.0], [0.5, 3.0]]),
             "weight": torch.tensor([[0.6, 0.3], [0.15, 0.9]]), "weight_u": torch.tensor([0.6, 0.8])}
print("pre-1.0 checkpoint:", square.load_state_dict(old_style), r(square.weight_v))
with torch.no_grad():
    print("singular value (eval)", round((s.weight_orig / s.weight)[0, 0].item(), 4))
nn.utils.remove_spectral_norm(s)
print("removed", [name for name, _ in s.named_parameters()], [name for name, _ in s.named_buffers()],
      r(s.weight), len(s._forward_pre_hooks))
print("hooks left", len(s._state_dict_hooks), len(s._load_state_dict_pre_hooks))
show_err("plain state dict after removal", lambda: s.load_state_dict(s.state_dict()))
show_err("two iterations of zero", lambda: nn.utils.spectral_norm(linear(), n_power_iterations=0))
show_err("remove again", lambda: nn.utils.remove_spectral_norm(s))
conv = nn.utils.spectral_norm(nn.Conv2d(2, 3, 2))
print("conv", tuple(conv.weight_u.shape), tuple(conv.weight_v.shape))


print("== parametrize")


class Symmetric(nn.Module):
    def forward(self, X):
        return (X + X.transpose(0, 1)) * 0.5


class Scale(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, X):
        print("  Scale runs")
        return X * self.k

    def right_inverse(self, A):
        return A / self.k


sq = nn.Linear(3, 3, bias=False)
with torch.no_grad():
    sq.weight.copy_(torch.arange(9.0).reshape(3, 3))
print(P.is_parametrized(sq), P.type_before_parametrizations(sq).__name__)
P.register_parametrization(sq, "weight", Symmetric())
print(sq)
print(type(sq).__name__, P.type_before_parametrizations(sq).__name__, P.is_parametrized(sq),
      P.is_parametrized(sq, "weight"), P.is_parametrized(sq, "bias"))
print([name for name, _ in sq.named_parameters()], list(sq.state_dict()))
print("weight", r(sq.weight), sq.weight.grad_fn.name(), "original", r(sq.parametrizations.weight.original))
print("a new graph per access:", sq.weight is not sq.weight)
P.register_parametrization(sq, "weight", Scale(2.0))
print(sq.parametrizations.weight)
w1 = sq.weight
print("chained", r(w1))
with P.cached():
    a, b = sq.weight, sq.weight
    print("cached: the same tensor", a is b)
out = sq(torch.ones(1, 3))
out.sum().backward()
print("original.grad", r(sq.parametrizations.weight.original.grad))
show_err("assign without right_inverse", lambda: setattr(sq, "weight", torch.eye(3)))
scaled = P.register_parametrization(linear(bias=False), "weight", Scale(2.0))
print("registered through right_inverse: original", r(scaled.parametrizations.weight.original))
scaled.weight = torch.ones(2, 3) * 4.0
print("after assignment: original", r(scaled.parametrizations.weight.original), "weight", r(scaled.weight))
Flat = type("Flat", (nn.Module,), {"forward": lambda self, X: X.reshape(-1)})
show_err("shape change", lambda: P.register_parametrization(nn.Linear(3, 2), "weight", Flat()))
show_err("chained shape change", lambda: P.register_parametrization(scaled, "weight", Flat()))
unsafe = P.register_parametrization(nn.Linear(3, 2), "weight", Flat(), unsafe=True)
print("unsafe", tuple(unsafe.weight.shape))
show_err("no such tensor", lambda: P.register_parametrization(nn.Linear(3, 2), "scale", Symmetric()))
show_err("not parametrized", lambda: P.remove_parametrizations(nn.Linear(3, 2), "weight"))
P.remove_parametrizations(sq, "weight")
print("removed", type(sq).__name__, [name for name, _ in sq.named_parameters()], r(sq.weight),
      P.is_parametrized(sq), hasattr(sq, "parametrizations"))
kept = nn.Linear(2, 2, bias=False)
with torch.no_grad():
    kept.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
P.register_parametrization(kept, "weight", Symmetric())
P.remove_parametrizations(kept, "weight", leave_parametrized=False)
print("leave_parametrized=False", r(kept.weight))

print("== parametrizations.weight_norm")
pw = parametrizations.weight_norm(linear())
print(pw)
print([name for name, _ in pw.named_parameters()], list(pw.state_dict()))
print("weight", r(pw.weight), pw.weight.grad_fn.name(), "g", r(pw.parametrizations.weight.original0))
pw(x).sum().backward()
print("grads", r(pw.parametrizations.weight.original0.grad), r(pw.parametrizations.weight.original1.grad))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    old_sd = nn.utils.weight_norm(linear()).state_dict()
old_sd["weight_g"] = old_sd["weight_g"] * 2.0
print("old weight_norm state dict:", list(old_sd), pw.load_state_dict(old_sd), r(pw.weight))
P.remove_parametrizations(pw, "weight")
print("removed", type(pw).__name__, [name for name, _ in pw.named_parameters()], r(pw.weight))
