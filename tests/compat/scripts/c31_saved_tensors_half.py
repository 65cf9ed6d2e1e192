# Save memory: store saved activations in half precision, restore on unpack.
import torch

def pack_half(t):
    return t.half()

def unpack_float(t):
    return t.float()

x = torch.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_half, unpack_float):
    y = x * x
    z = y.exp().sum()
z.backward()
print(x.grad)
ref = torch.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
(ref * ref).exp().sum().backward()
print(ref.grad)
print((x.grad - ref.grad).abs().max() < 1e-2)
h = torch.tensor([1.0, 2.0]).half()
print(h, h.dtype)
print(h.float().dtype)
