# state_dict post-hooks that add a version key and drop buffers we do not want to ship.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))

def drop_running_stats(module, state_dict, prefix, local_metadata):
    for key in [k for k in state_dict if k.startswith(prefix) and ("running_" in k or "num_batches" in k)]:
        del state_dict[key]

def add_format_version(module, state_dict, prefix, local_metadata):
    state_dict[prefix + "format_version"] = torch.tensor(2)

model[1].register_state_dict_post_hook(drop_running_stats)
model.register_state_dict_post_hook(add_format_version)
sd = model.state_dict()
for k, v in sd.items():
    print(k, list(v.shape))
print(sd._metadata)
other = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
result = other.load_state_dict(sd, strict=False)
print(result)
print(result.missing_keys)
print(torch.equal(other[0].weight, model[0].weight))
