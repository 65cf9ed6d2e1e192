# https://github.com/pytorch/pytorch/issues/57369
# inference tensors fail early: an in-place update outside inference mode, or saving one for backward, raises
# in the forward pass.
import torch

with torch.inference_mode():
    cache = torch.zeros(3)
    view = cache[1:]
print(torch.is_inference_mode_enabled(), cache.is_inference(), view.is_inference())
try:
    cache.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = w + cache  # fine: add saves nothing for backward
print(out)
try:
    w * cache
except RuntimeError as e:
    print("RuntimeError:", e)

with torch.inference_mode():
    cache.add_(1)
    inside = w * 2
print(cache, inside.requires_grad, inside.grad_fn)
normal = cache.clone()
print(normal.is_inference(), (w * normal).sum())
