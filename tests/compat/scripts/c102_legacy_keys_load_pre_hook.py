# https://docs.nvidia.com/megatron-core/developer-guide/latest/apidocs/core/core.post_training.modelopt.gpt.state_dict_hooks.html
# a load_state_dict pre-hook (state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
# error_msgs) that renames legacy keys.
import torch
import torch.nn as nn


def legacy_state_dict_pre_hook(state_dict, prefix, local_metadata, strict,
                               missing_keys, unexpected_keys, error_msgs):
    print("pre-hook on prefix", repr(prefix), "version", local_metadata.get("version"))
    for key in list(state_dict.keys()):
        if key.startswith(prefix + "dense_h_to_4h."):
            new_key = key.replace("dense_h_to_4h.", "linear_fc1.")
            state_dict[new_key] = state_dict.pop(key)
            print("  renamed", key, "->", new_key)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear_fc1 = nn.Linear(2, 3)
        self.linear_fc2 = nn.Linear(3, 2)
        self._register_load_state_dict_pre_hook(legacy_state_dict_pre_hook)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = MLP()


old_checkpoint = {
    "mlp.dense_h_to_4h.weight": torch.arange(6.0).reshape(3, 2),
    "mlp.dense_h_to_4h.bias": torch.tensor([0.5, 0.0, -0.5]),
    "mlp.linear_fc2.weight": torch.ones(2, 3),
    "mlp.linear_fc2.bias": torch.zeros(2),
}
block = Block()
result = block.load_state_dict(old_checkpoint)
print(result)
print(block.mlp.linear_fc1.weight)
print(sorted(old_checkpoint))
print(list(block.state_dict()._metadata.items()))
