# Legacy constructors and type strings from older tutorials and forum answers.
import torch

a = torch.FloatTensor([1, 2, 3])
b = torch.LongTensor([1, 2, 3])
print(a, a.dtype)
print(b, b.dtype)
print(a.type(), b.type())
print(a.type(torch.LongTensor))
print(b.float().type())
print(torch.FloatTensor(2, 3).shape)
print(isinstance(a, torch.FloatTensor))
print(torch.tensor([1.0]).type())
print(torch.tensor([True]).type())
print(torch.DoubleTensor([1.5]))
