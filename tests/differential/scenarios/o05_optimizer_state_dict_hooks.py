"""o05: Optimizer.state_dict() / load_state_dict(): layout, hooks, sharing, errors.

Intent: state_dict() is {"state": {id: {...}}, "param_groups": [{options...,
"params": [ids]}]} with ids numbered from 0 in group order (and "param_names" when
the optimizer was given named_parameters()). Hooks: state_dict pre-hooks get the
optimizer; post-hooks get (optimizer, state_dict) and may return a new dict;
load pre-hooks get (optimizer, a shallow copy of the dict) and may return the dict
to load; load post-hooks get the optimizer; prepend=True puts a hook first.
Traps: the per-parameter state in the result is the optimizer's own dict (a later
step changes it: copy it to keep a snapshot); load_state_dict keeps the loaded
tensors when dtypes match (two optimizers then share them) and casts floating state
to the parameter's dtype, except "step"; the group sizes must match.
"""
import copy

import torch
import torch.nn as nn

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

def show(sd):
    state = {k: {n: (r(t) if isinstance(t, torch.Tensor) else t) for n, t in s.items()}
             for k, s in sd["state"].items()}
    print("  state:", state)
    for g in sd["param_groups"]:
        print("  group:", {k: g[k] for k in ("lr", "momentum", "params", "param_names") if k in g})

model = nn.Sequential(nn.Linear(2, 1), nn.Linear(1, 1, bias=False))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.tensor([[1.0, 2.0]])

def train(opt, steps=1):
    for _ in range(steps):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[1].parameters(), "lr": 0.5}],
                      lr=0.1, momentum=0.9)
print("before any step:")
show(opt.state_dict())
train(opt)
sd = opt.state_dict()
print("after one step:")
show(sd)
print("keys:", list(sd), "| group keys:", sorted(sd["param_groups"][0]))
train(opt)
print("the returned state is live:", r(sd["state"][2]["momentum_buffer"]),
      "| is the optimizer's:", sd["state"][0] is opt.state[model[0].weight])

print("named parameters:")
named = torch.optim.SGD(model.named_parameters(), lr=0.1)
show(named.state_dict())
show_err("mixing names", lambda: named.add_param_group({"params": [nn.Parameter(torch.ones(1))]}))

print("hooks:")
opt.register_state_dict_pre_hook(lambda o: print("  sd pre A"))
opt.register_state_dict_pre_hook(lambda o: print("  sd pre B (prepend)"), prepend=True)
def add_epoch(o, state_dict):
    print("  sd post: adds a key")
    state_dict["epoch"] = 3
def replace(o, state_dict):
    print("  sd post: returns a new dict, keys", sorted(state_dict))
    return {**state_dict, "replaced": True}
opt.register_state_dict_post_hook(add_epoch)
opt.register_state_dict_post_hook(replace)
out = opt.state_dict()
print("  result keys:", sorted(out))

fresh = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[1].parameters()}],
                        lr=0.01, momentum=0.0)
def load_pre(o, state_dict):
    print("  load pre: keys", sorted(state_dict), "| is the caller's dict:", state_dict is out)
    state_dict = dict(state_dict)
    state_dict["param_groups"] = [dict(g, lr=g["lr"] * 10) for g in state_dict["param_groups"]]
    return state_dict
fresh.register_load_state_dict_pre_hook(lambda o, s: print("  load pre (first)"), prepend=True)
fresh.register_load_state_dict_pre_hook(load_pre)
fresh.register_load_state_dict_post_hook(
    lambda o: print("  load post: lrs", [g["lr"] for g in o.param_groups]))
fresh.load_state_dict(out)
print("  momentum:", [g["momentum"] for g in fresh.param_groups],
      "| shares the state tensors:", fresh.state[model[0].weight]["momentum_buffer"] is
      opt.state[model[0].weight]["momentum_buffer"])

print("loading casts floating state to the parameter dtype, except step:")
p64 = nn.Parameter(torch.tensor([1.0, 2.0], dtype=torch.float64))
adam64 = torch.optim.Adam([p64])
p32 = nn.Parameter(torch.tensor([1.0, 2.0]))
adam32 = torch.optim.Adam([p32])
p32.grad = torch.tensor([0.5, 0.5])
adam32.step()
adam64.load_state_dict(copy.deepcopy(adam32.state_dict()))
st = adam64.state[p64]
print("  ", {k: str(v.dtype).split(".")[-1] for k, v in st.items()})

print("errors:")
show_err("  group count", lambda: torch.optim.SGD(model.parameters(), lr=0.1).load_state_dict(sd))
show_err("  group size", lambda: torch.optim.SGD([{"params": model[0].parameters()}, {"params": [p32, p64]}],
                                                   lr=0.1).load_state_dict(sd))
show_err("  a group given as a set", lambda: torch.optim.SGD([{"params": {p32}}], lr=0.1))
show_err("  a tensor", lambda: torch.optim.SGD(p32, lr=0.1))
show_err("  same param twice", lambda: torch.optim.SGD([{"params": [p32]}, {"params": [p32]}], lr=0.1))
