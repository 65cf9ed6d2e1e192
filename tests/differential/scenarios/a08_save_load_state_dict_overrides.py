"""a08: a module that overrides _save_to_state_dict and _load_from_state_dict.

Intent: real code customises what a module writes into and reads from a state dict by
overriding these two methods (BatchNorm does, for old checkpoints): the override must be
called with PyTorch's arguments (prefix, local_metadata with the module's version, strict,
the missing/unexpected key lists), for every module of a nested model, in PyTorch's order.
"""
import torch
import torch.nn as nn


class Scaled(nn.Module):
    _version = 2

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([1.0, 2.0]))
        self.scale = 3.0

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        print("save", repr(prefix), keep_vars, sorted(destination))
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = torch.tensor(self.scale)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        print("load", repr(prefix), local_metadata, strict, sorted(state_dict))
        scale = state_dict.pop(prefix + "scale", None)
        if scale is not None:
            self.scale = scale.item()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        print("  missing", missing_keys, "unexpected", unexpected_keys)


model = nn.Sequential(Scaled(), nn.Sequential(Scaled()))
sd = model.state_dict()
print(list(sd), [v.tolist() for v in sd.values()])
print("metadata", {k: v for k, v in sd._metadata.items()})
sd["0.scale"] = torch.tensor(5.0)
sd["1.0.weight"] = torch.tensor([7.0, 8.0])
result = model.load_state_dict(sd)
print(result, model[0].scale, model[1][0].weight.tolist())
del sd["1.0.weight"]
print(model.load_state_dict(sd, strict=False))
