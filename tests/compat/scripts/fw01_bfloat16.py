# bfloat16 on the CPU, as mixed-precision tutorials use it (the PyTorch docs' "torch.finfo"
# page and the bfloat16 examples of the CPU AMP recipe): conversions, printing, the
# float32-compute-then-round arithmetic, promotion with other dtypes, finfo, autograd.
import torch

b = torch.tensor([1.0, 2.5, 3.14159, 1e-3, 300.7], dtype=torch.bfloat16)
print(b, b.dtype, b.element_size(), b.is_floating_point(), b.type())
print(torch.bfloat16, torch.bfloat16.itemsize, torch.bfloat16.is_floating_point, torch.bfloat16.is_signed)
print(b.float(), b.double().dtype, torch.arange(4).to(torch.bfloat16), torch.ones(2).bfloat16().dtype)
print(torch.tensor([0.1, 0.2]).bfloat16().float().tolist())
print(torch.tensor([1.0001, 1000.5, 65504.0, 1e10, -7.25], dtype=torch.float64).to(torch.bfloat16))
print(torch.tensor([16777217 + 2 ** 16]).to(torch.bfloat16).item())
print(torch.tensor(1 / 3, dtype=torch.bfloat16).item())

print(b * 3, b + 1.5, (b + torch.ones(5)).dtype, (b + torch.ones(5, dtype=torch.half)).dtype)
print((b * torch.tensor([2, 2, 2, 2, 2])).dtype, (b > 2).dtype)
print(b.sum(), b.mean(), b.exp(), b @ b)
for d in (torch.bfloat16, torch.float16, torch.float32, torch.float64):
    info = torch.finfo(d)
    print(info, info.bits, info.eps, info.max, info.tiny, info.resolution, info.dtype)
print(torch.finfo(), torch.iinfo(torch.int64), torch.iinfo(torch.int32).max)
try:
    torch.finfo(torch.int64)
except TypeError as e:
    print("TypeError:", e)

x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16, requires_grad=True)
y = (x * x).sum()
y.backward()
print(y, x.grad, x.grad.dtype)
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
out = (w.bfloat16() @ torch.tensor([1.0, 3.0], dtype=torch.bfloat16)).float().sum()
out.backward()
print(out, out.grad_fn, out.grad_fn.next_functions[0][0], w.grad, w.grad.dtype)

lin = torch.nn.Linear(2, 2).bfloat16()
print(lin.weight.dtype, lin.float().weight.dtype, lin.half().weight.dtype)
try:
    torch.tensor([1.0], dtype=torch.bfloat16).numpy()
except TypeError as e:
    print("TypeError:", e)
legacy = torch.BFloat16Tensor([1.5, 2.25])
print(legacy, isinstance(legacy, torch.BFloat16Tensor), legacy.get_device(), torch.ones(1).get_device())
