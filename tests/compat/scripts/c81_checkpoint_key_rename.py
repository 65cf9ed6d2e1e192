# Load an old checkpoint whose keys were renamed since (fc -> classifier) with a load_state_dict pre-hook.
import os
import tempfile

import torch
import torch.nn as nn

class OldNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(3, 4)
        self.fc = nn.Linear(4, 2)

class NewNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(3, 4)
        self.classifier = nn.Linear(4, 2)
        self._register_load_state_dict_pre_hook(self._upgrade_keys, with_module=True)

    @staticmethod
    def _upgrade_keys(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                      error_msgs):
        for key in list(state_dict.keys()):
            if key.startswith(prefix + "fc."):
                new_key = prefix + "classifier." + key[len(prefix + "fc."):]
                print(f"renaming {key} -> {new_key}")
                state_dict[new_key] = state_dict.pop(key)

    def forward(self, x):
        return self.classifier(torch.relu(self.features(x)))

old = OldNet()
with torch.no_grad():
    for p in old.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "old.pt")
    torch.save(old.state_dict(), path)
    checkpoint = torch.load(path)
print("checkpoint keys:", list(checkpoint.keys()))
new = NewNet()
print(new.load_state_dict(checkpoint))
print("checkpoint keys after loading:", list(checkpoint.keys()))
print(torch.equal(new.classifier.weight, old.fc.weight))
print(new(torch.tensor([[1.0, 0.5, -0.5]])))
try:
    OldNet().load_state_dict(new.state_dict())
except RuntimeError as e:
    print(e)
