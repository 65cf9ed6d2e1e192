# Print the gradient flowing through an intermediate tensor.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.register_hook(lambda grad: print("grad of y:", grad))
z = (y ** 2).sum()
z.backward()
print("grad of x:", x.grad)

h = x.register_hook(lambda g: print(f"x hook sees {g}"))
(x * x).sum().backward()
h.remove()
(x * x).sum().backward()
print(x.grad)
