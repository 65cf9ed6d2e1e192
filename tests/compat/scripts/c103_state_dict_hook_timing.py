# https://discuss.pytorch.org/t/invoking-time-of-nn-module-register-state-dict-hook/108163
# when does a _register_state_dict_hook run? Every time state_dict() is called, after the module's own entries
# are in.
import torch
import torch.nn as nn

calls = []


def hook(module, state_dict, prefix, local_metadata):
    calls.append(prefix)
    print(f"hook: prefix={prefix!r} keys={list(state_dict.keys())}")
    state_dict[prefix + "extra_note"] = torch.tensor(len(calls))


net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
net[0]._register_state_dict_hook(hook)
print("registered, calls so far:", calls)
sd = net.state_dict()
print(list(sd.keys()))
with torch.no_grad():
    net[0].weight.mul_(2)
sd = net.state_dict(prefix="model.")
print(list(sd.keys()))
print(sd["model.0.extra_note"])
print("calls:", calls)
