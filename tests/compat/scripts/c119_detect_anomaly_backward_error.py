# https://PyTorch.org/docs/stable/_modules/torch/autograd/anomaly_mode.html
# detect_anomaly's own example: MyFunc fails in backward; with anomaly mode the error names the forward call
# that made the node.
import torch
from torch import autograd


class MyFunc(autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.clone()

    @staticmethod
    def backward(ctx, gO):
        # Error during the backward pass
        raise RuntimeError("Some error in backward")
        return gO.clone()


def run_fn(a):
    out = MyFunc.apply(a)
    return out.sum()


inp = torch.ones(2, 2, requires_grad=True)
out = run_fn(inp)
try:
    out.backward()
except RuntimeError as e:
    print("without anomaly mode:", e)

with autograd.detect_anomaly():
    inp = torch.ones(2, 2, requires_grad=True)
    out = run_fn(inp)
    try:
        out.backward()
    except RuntimeError as e:
        print("with anomaly mode:", e)
print(torch.is_anomaly_enabled())
