# https://docs.pytorch.org/docs/stable/generated/torch.autograd.function.FunctionCtx.save_for_backward.html
# the Func example: inputs, outputs and a non-tensor saved on ctx, and intermediaries recomputed in backward.
import torch
from torch.autograd import Function


class Func(Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, y: torch.Tensor, z: int):
        w = x * z
        out = x * y + y * z + w * y
        ctx.save_for_backward(x, y, w, out)
        ctx.z = z  # z is not a tensor
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, y, w, out = ctx.saved_tensors
        z = ctx.z
        gx = grad_out * (y + y * z)
        gy = grad_out * (x + z + w)
        gz = None
        return gx, gy, gz


a = torch.tensor(1., requires_grad=True, dtype=torch.double)
b = torch.tensor(2., requires_grad=True, dtype=torch.double)
c = 4
d = Func.apply(a, b, c)
print(d)
print(d.grad_fn.saved_tensors)
d.backward()
print(a.grad, b.grad)

ref_a = torch.tensor(1., requires_grad=True, dtype=torch.double)
ref_b = torch.tensor(2., requires_grad=True, dtype=torch.double)
(ref_a * ref_b + ref_b * c + ref_a * c * ref_b).backward()
print(ref_a.grad, ref_b.grad)
inputs = (a.detach().requires_grad_(), b.detach().requires_grad_())
print(torch.autograd.gradcheck(lambda p, q: Func.apply(p, q, 4), inputs))
