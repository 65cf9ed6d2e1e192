# CPU mixed precision as the PyTorch AMP recipe and Intel's CPU tuning guide write it:
# torch.autocast(device_type="cpu", dtype=torch.bfloat16) around the forward, which ops run
# in bfloat16 and which in float32, the casts in the graph, the weight-cast cache, nesting,
# the decorator form, custom_fwd/custom_bwd, and the deprecated torch.cpu.amp spelling.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 8), nn.Tanh(),
                      nn.Linear(8, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape) * (1 + i % 2))
x = torch.linspace(-1, 1, 2 * 36).reshape(2, 1, 6, 6)
target = torch.tensor([0, 2])
opt = torch.optim.SGD(model.parameters(), lr=0.1)

print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
for step in range(2):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        print(torch.is_autocast_enabled("cpu"), torch.is_autocast_enabled())
        logits = model(x)
        loss = F.cross_entropy(logits, target)
        probs = logits.softmax(-1)
        print(logits.dtype, loss.dtype, probs.dtype, model[3](model[2](model[1](model[0](x)))).dtype)
        print(loss.grad_fn, loss.grad_fn.next_functions[0][0], logits.grad_fn.next_functions)
    opt.zero_grad()
    loss.backward()
    print(step, round(loss.item(), 2), [p.grad.dtype for p in model.parameters()][:2],
          model[5].weight.grad.shape)
    opt.step()
print(model[5].weight.dtype, torch.is_autocast_enabled("cpu"))

a = torch.linspace(-1, 1, 6).reshape(2, 3)
b = torch.linspace(0, 1, 6).reshape(3, 2)
w = torch.ones(3, 3, requires_grad=True)
with torch.autocast("cpu"):
    print((a @ b).dtype, torch.mm(a, b).dtype, (a * 2).dtype, a.sum().dtype, a.prod().dtype,
          torch.cat([a.bfloat16(), a]).dtype, torch.stack([a.bfloat16(), a.bfloat16()]).dtype,
          (a.double() @ b.double()).dtype, F.mse_loss(a.bfloat16(), a).dtype,
          F.l1_loss(a.bfloat16(), a).dtype, F.layer_norm(a.bfloat16(), (3,)).dtype, (a @ b).exp().dtype,
          F.linear(a, w).dtype)
    first, second = a @ w, a @ w
    print(first.grad_fn.next_functions[1][0] is second.grad_fn.next_functions[1][0])
    with torch.autocast("cpu", enabled=False):
        print((a @ b).dtype, torch.is_autocast_enabled("cpu"))
    print((a @ b).dtype, (w.t() @ b).grad_fn.next_functions)
with torch.autocast("cpu", dtype=torch.float16):
    print((a @ b).dtype, torch.get_autocast_dtype("cpu"))
print(torch.get_autocast_dtype("cpu"), (a @ b).dtype)


@torch.autocast("cpu")
def project(u, v):
    return u @ v


print(project(a, b).dtype, (a @ b).dtype)


class ScaledMatmul(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, u, v):
        ctx.save_for_backward(u, v)
        return u @ v

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, grad):
        u, v = ctx.saved_tensors
        return grad @ v.t(), u.t() @ grad


u = torch.ones(2, 3, requires_grad=True)
with torch.autocast("cpu"):
    out = ScaledMatmul.apply(u, b.bfloat16())
    print(out.dtype)
out.sum().backward()
print(u.grad.dtype, u.grad)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.cpu.amp.autocast():
        print((a @ b).dtype)
    with torch.autocast("cpu", dtype=torch.float32):
        print((a @ b).dtype)
    with torch.autocast("cuda"):
        print((a @ b).dtype)
print([(w.category.__name__, str(w.message)) for w in caught])
try:
    torch.autocast(torch.device("cpu"))
except ValueError as e:
    print("ValueError:", e)

# the state functions autocast's context manager is built from (as custom AMP helpers call them)
print(torch.is_autocast_cache_enabled(), torch.autocast_increment_nesting(),
      torch.autocast_decrement_nesting())
torch.set_autocast_enabled("cpu", True)
torch.set_autocast_dtype("cpu", torch.float16)
print((a @ b).dtype, torch.is_autocast_enabled("cpu"))
torch.set_autocast_cache_enabled(False)
print(torch.is_autocast_cache_enabled())
torch.set_autocast_cache_enabled(True)
torch.clear_autocast_cache()
torch.set_autocast_enabled("cpu", False)
torch.set_autocast_dtype("cpu", torch.bfloat16)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    torch.set_autocast_cpu_enabled(True)
    torch.set_autocast_cpu_dtype(torch.bfloat16)
    print(torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype(), (a @ b).dtype)
    torch.set_autocast_cpu_enabled(False)
print(torch.is_autocast_enabled("cpu"), (a @ b).dtype)
