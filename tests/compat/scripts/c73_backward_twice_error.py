# The most asked autograd question: "Trying to backward through the graph a second time".
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x.exp() * 2).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print(e)
z = (x.exp() * 2).sum()
z.backward(retain_graph=True)
z.backward()
print(x.grad)
try:
    torch.tensor([1.0, 2.0]).sum().backward()
except RuntimeError as e:
    print(e)
try:
    (x * 2).backward()
except RuntimeError as e:
    print(e)
