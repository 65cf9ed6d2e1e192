# https://docs.pytorch.org/docs/stable/generated/torch.autograd.functional.jvp.html
# strict=True refuses an output that does not depend on an input; strict=False returns zeros, "the expected
# mathematical value".
import torch
from torch.autograd.functional import jacobian, vjp


def ignores_y(x, y):
    return x * 2


x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
print(vjp(ignores_y, (x, y), torch.ones(2)))
try:
    vjp(ignores_y, (x, y), torch.ones(2), strict=True)
except RuntimeError as e:
    print("RuntimeError:", e)

print(jacobian(ignores_y, (x, y)))
try:
    jacobian(ignores_y, (x, y), strict=True)
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    vjp(lambda t: t * 2, x, torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    vjp(lambda t: t * 2, [x])
except TypeError as e:
    print("TypeError:", e)
