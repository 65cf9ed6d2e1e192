# Save a checkpoint dict with tensors, an epoch number and a list, then load it back.
import io
import os
import tempfile

import torch

ckpt = {
    "epoch": 3,
    "weights": torch.arange(6, dtype=torch.float32).reshape(2, 3),
    "ids": torch.tensor([1, 2, 3]),
    "history": [0.5, 0.25],
}
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "ckpt.pth")
    torch.save(ckpt, path)
    loaded = torch.load(path)
print(sorted(loaded))
print(loaded["epoch"], loaded["history"])
print(loaded["weights"])
print(loaded["ids"].dtype)
buf = io.BytesIO()
torch.save(torch.tensor([1.5, 2.5]), buf)
buf.seek(0)
print(torch.load(buf))
