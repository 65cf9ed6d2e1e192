# Forward pre-hooks can inspect or replace a module's input; with_kwargs sees keyword args too.
import torch
import torch.nn as nn

lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
    lin.bias.fill_(0.5)

def normalise_input(module, args):
    (x,) = args
    print(f"{type(module).__name__} got input of shape {tuple(x.shape)}")
    return (x / x.abs().max(),)

h = lin.register_forward_pre_hook(normalise_input)
print(lin(torch.tensor([[4.0, 2.0]])))
h.remove()
print(lin(torch.tensor([[4.0, 2.0]])))

class Scale(nn.Module):
    def forward(self, x, factor=1.0):
        return x * factor

m = Scale()

def pre_kw(module, args, kwargs):
    print("kwargs:", kwargs)
    kwargs["factor"] = 3.0
    return args, kwargs

m.register_forward_pre_hook(pre_kw, with_kwargs=True)
print(m(torch.tensor([1.0, 2.0]), factor=2.0))
