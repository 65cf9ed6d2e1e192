# The numpy bridge and its classic error.
import numpy as np
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
try:
    y.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(y.detach().numpy())
print(y.detach().cpu().numpy().tolist())
a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
t = torch.from_numpy(a)
a[1] = -1
print(t)
t2 = torch.tensor(a)
a[2] = 100
print(t2)
print(torch.as_tensor([[1, 2], [3, 4]]))
print(y.tolist(), y.sum().item())
print(type(y.sum().item()).__name__)
