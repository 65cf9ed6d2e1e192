# dtype conversions: .double(), .long(), .to(dtype), .half(), and what requires_grad does.
import torch

x = torch.tensor([1.5, -2.5, 3.0], requires_grad=True)
d = x.double()
print(d, d.dtype, d.grad_fn)
print(x.long(), x.int().dtype)
print(x.to(torch.float64).dtype)
h = x.half()
print(h)
print(x.detach().to(torch.int64))
print(x.bool())
(d * 2).sum().backward()
print(x.grad, x.grad.dtype)
print(torch.get_default_dtype())
print(torch.tensor([1, 2]).dtype, torch.tensor([1.0]).dtype)
print(x.is_floating_point(), x.long().is_floating_point())
