# torch.inference_mode, the faster cousin of no_grad.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    y = w * 2
print(y.requires_grad)
print(y)

@torch.inference_mode()
def f(t):
    return t.sum()

print(f(w))
print(torch.is_inference_mode_enabled())
