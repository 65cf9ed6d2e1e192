# Save an optimizer with extra info in a state_dict post-hook, restore it with a load pre-hook that resets lr.
import copy

import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, -1.0]]))
    model.bias.zero_()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
opt.register_state_dict_post_hook(lambda o, sd: sd.__setitem__("saved_by", "c86"))
for _ in range(2):
    opt.zero_grad()
    model(torch.tensor([[1.0, 2.0]])).sum().backward()
    opt.step()
checkpoint = copy.deepcopy(opt.state_dict())
print(checkpoint["saved_by"], checkpoint["param_groups"])
print({k: v["momentum_buffer"] for k, v in checkpoint["state"].items()})

def reset_lr(optimizer, state_dict):
    print("loading a checkpoint saved by", state_dict.pop("saved_by"))
    for group in state_dict["param_groups"]:
        group["lr"] = 0.01
    return state_dict

new_opt = torch.optim.SGD(model.parameters(), lr=1.0)
new_opt.register_load_state_dict_pre_hook(reset_lr)
new_opt.register_load_state_dict_post_hook(lambda o: print("loaded:", o.param_groups[0]["lr"],
                                                           o.param_groups[0]["momentum"]))
new_opt.load_state_dict(checkpoint)
print("saved_by" in checkpoint)
print(new_opt.state[model.weight]["momentum_buffer"])
print(new_opt)
