# torch.set_printoptions changes how every tensor prints afterwards.
import torch

x = torch.tensor([1.0 / 3, 2.0 / 3, 12345.678])
print(x)
torch.set_printoptions(precision=2)
print(x)
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-6, 1.0]))
torch.set_printoptions(threshold=5)
print(torch.arange(10))
torch.set_printoptions(profile="default")
print(torch.arange(10))
print(torch.tensor([1e-6, 1.0]))
