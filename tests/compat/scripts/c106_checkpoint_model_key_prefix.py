# https://chaos-blog.github.io/posts/20
# a checkpoint saved from a wrapped model: load ckpt["model"], replace the "module." prefix key by key, then
# load.
import io

import torch
import torch.nn as nn


class HRBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_hr = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))

    def forward(self, x):
        return self.conv_hr(x)


class Wrapper(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module


net = HRBranch()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
buffer = io.BytesIO()
torch.save({"model": Wrapper(net).state_dict(), "epoch": 7}, buffer)
buffer.seek(0)

ckp = torch.load(buffer, map_location=torch.device("cpu"))
ckp_state_dict = ckp["model"]
print(list(ckp_state_dict.keys()))
ckp_state = {}
for k, v in ckp_state_dict.items():
    k = k.replace("module.", "")
    ckp_state[k] = v
restored = HRBranch()
print(restored.load_state_dict(ckp_state))
x = torch.tensor([[1.0, -1.0]])
print(restored(x), net(x))
print(ckp["epoch"])
