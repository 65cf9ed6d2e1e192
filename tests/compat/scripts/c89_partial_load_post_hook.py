# Fine-tuning: load a backbone checkpoint into a model with a new head; a post-hook forgives the head.
import torch
import torch.nn as nn

def backbone():
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU())

pretrained = nn.Sequential(backbone(), nn.Linear(4, 10))
with torch.no_grad():
    for p in pretrained.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
checkpoint = {k: v for k, v in pretrained.state_dict().items() if k.startswith("0.")}

model = nn.Sequential(backbone(), nn.Linear(4, 2))

def ignore_new_head(module, incompatible_keys):
    print("missing before:", incompatible_keys.missing_keys)
    for key in list(incompatible_keys.missing_keys):
        if key.startswith("1."):
            incompatible_keys.missing_keys.remove(key)

handle = model.register_load_state_dict_post_hook(ignore_new_head)
print(model.load_state_dict(checkpoint))
print(torch.equal(model[0][0].weight, pretrained[0][0].weight))
handle.remove()
try:
    model.load_state_dict(checkpoint)
except RuntimeError as e:
    print(type(e).__name__, e)
print(model.load_state_dict(checkpoint, strict=False))
