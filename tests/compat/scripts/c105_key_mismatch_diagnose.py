# https://deadends.dev/pytorch/state-dict-key-mismatch/torch2-linux
# "Error(s) in loading state_dict": compare the key sets, and the size-mismatch variant.
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
checkpoint = {"module." + k: v for k, v in model.state_dict().items()}
try:
    model.load_state_dict(checkpoint)
except RuntimeError as e:
    print(e)

model_keys = set(model.state_dict().keys())
ckpt_keys = set(checkpoint.keys())
print("Missing:", sorted(model_keys - ckpt_keys))
print("Unexpected:", sorted(ckpt_keys - model_keys))

bigger = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))
try:
    model.load_state_dict(bigger.state_dict())
except RuntimeError as e:
    print(e)

for name, tensor in bigger.state_dict().items():
    mine = model.state_dict()[name]
    if mine.shape != tensor.shape:
        print(f"{name}: model {tuple(mine.shape)} vs checkpoint {tuple(tensor.shape)}")
