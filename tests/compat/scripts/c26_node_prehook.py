# Hooks on a backward node: a pre-hook sees (and may replace) grad_outputs.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
z = y.sum()

def pre(grad_outputs):
    print("ExpBackward0 pre-hook:", grad_outputs)
    return (grad_outputs[0] * 0 + 1,)

handle = y.grad_fn.register_prehook(pre)
z.backward()
print(x.grad)
print(type(handle).__name__)
