# Building a model on the meta device, as big-model loading code does (the PyTorch docs'
# "meta device" page, Hugging Face accelerate's init_empty_weights, torchtitan): no memory
# at construction, shape inference by a meta forward, to_empty(), then initialisation or
# load_state_dict; meta tensors print, promote and refuse data access as PyTorch's do.
import io

import torch
import torch.nn as nn


def make():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                         nn.Linear(4 * 8 * 8, 16), nn.LayerNorm(16), nn.Linear(16, 3))


with torch.device("meta"):
    model = make()
    emb = nn.Embedding(10, 4, padding_idx=0)
print(model)
for name, t in list(model.named_parameters()) + list(model.named_buffers()):
    print(name, t.device, t.dtype, tuple(t.shape), t.is_meta, t.requires_grad)
print(emb.weight)
print(torch.get_default_device(), torch.empty(2).device)

x = torch.empty(5, 1, 8, 8, device="meta")
out = model(x)
print(out, out.shape, out.grad_fn)
out.sum().backward()
print(model[4].weight.grad)
print(torch.empty(3, 4, device="meta", dtype=torch.float64, requires_grad=True))
print(torch.zeros(2, device="meta").to(torch.int64), torch.ones(2, 2).to("meta").grad_fn)
print(torch.empty(2, 3, device="meta") + torch.tensor(1.0), torch.zeros_like(x).device)

for attempt in (lambda: out.tolist(), lambda: out.numpy(), lambda: out.to("cpu"), lambda: model.to("cpu"),
                lambda: torch.empty(2, 3, device="meta") + torch.ones(3), lambda: out[0, 0].item()):
    try:
        attempt()
    except (RuntimeError, NotImplementedError, TypeError) as e:
        print(type(e).__name__ + ":", e)

reference = make()
with torch.no_grad():
    for i, p in enumerate(reference.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) / 10)
buffer = io.BytesIO()
torch.save(reference.state_dict(), buffer)
model.to_empty(device="cpu")
print({name: str(t.device) for name, t in model.state_dict().items()})
buffer.seek(0)
print(model.load_state_dict(torch.load(buffer)))
model.eval()
reference.eval()
x = torch.linspace(0, 1, 64).reshape(1, 1, 8, 8)
print(torch.allclose(model(x), reference(x)), model(x))
buffer.seek(0)
meta_sd = torch.load(buffer, map_location="meta")
print(meta_sd["4.weight"])

lin = nn.Linear(3, 2, device="meta")
lin.to_empty(device="cpu")
lin.reset_parameters()
print(lin.weight.shape, lin.weight.device, bool((lin.weight.abs() <= 3 ** -0.5).all()))
print(nn.Linear(2, 2).to("meta").weight, nn.Linear(2, 2).to_empty(device="meta").bias)
torch.set_default_device("meta")
print(torch.tensor([1.0, 2.0]), torch.arange(3), torch.get_default_device())
torch.set_default_device(None)
print(torch.tensor([1.0, 2.0]), torch.get_default_device())
