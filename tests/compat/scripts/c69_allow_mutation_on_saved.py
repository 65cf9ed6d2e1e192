# allow_mutation_on_saved_tensors: in-place changes after saving no longer break backward.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    b = a.clone()
    out = (b * b).sum()
    b.mul_(10)
    out.backward()
print(a.grad)
print(b)

c = a.clone()
out2 = (c * c).sum()
c.mul_(10)
try:
    out2.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
