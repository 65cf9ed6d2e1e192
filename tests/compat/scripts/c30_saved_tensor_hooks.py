# Watch what autograd saves for backward with saved_tensors_hooks.
import torch

def pack(t):
    print(f"pack   {tuple(t.shape)} {t.dtype}")
    return t

def unpack(t):
    print(f"unpack {tuple(t.shape)}")
    return t

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * w).sin()
    z = y.sum()
print("forward done")
z.backward()
print(x.grad)
print(w.grad)
