"""o03: the global registration hooks of torch.nn.modules.module.

Intent: register_module_parameter_registration_hook, _buffer_ and _module_ hooks run
for every module, inside register_parameter / register_buffer / add_module, which
attribute assignment calls (self.w = nn.Parameter(...), self.b = nn.Buffer(...),
self.sub = nn.Linear(...)), so they also see what a layer's own __init__ registers.
hook(module, name, value): a returned value replaces the one registered (and is what
the next hook receives). Traps: a Parameter set to None is not reported, a buffer or
a child set to None is; assigning a plain tensor to an existing buffer's name goes
through register_buffer; hooks run after the name checks (a bad name raises before
any hook), and so does a value of the wrong type; several hooks run in registration
order; handles remove them.
"""
import torch
import torch.nn as nn
from torch.nn.modules.module import (register_module_buffer_registration_hook,
                                     register_module_module_registration_hook,
                                     register_module_parameter_registration_hook)

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

def describe(value):
    if value is None:
        return "None"
    if isinstance(value, nn.Module):
        return type(value).__name__
    kind = "Parameter" if isinstance(value, nn.Parameter) else "Tensor"
    return f"{kind}{tuple(value.shape)}"

def logger(kind):
    def hook(module, name, value):
        print(f"  {kind} hook: {type(module).__name__}.{name} = {describe(value)}")
    return hook

handles = [register_module_parameter_registration_hook(logger("param")),
           register_module_buffer_registration_hook(logger("buffer")),
           register_module_module_registration_hook(logger("module"))]

print("building Sequential(Linear(2, 3), BatchNorm1d(3)):")
model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2))
        self.register_parameter("nothing", None)
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("empty", None)
        self.avg = nn.Buffer(torch.zeros(2), persistent=False)
        self.sub = nn.Identity()
        self.add_module("other", None)

print("building Net:")
net = Net()
print("re-assigning:")
net.count = torch.ones(())
net.w = None
net.sub = None
net.register_module("late", nn.ReLU())

print("errors raise before any hook:")
show_err("  bad parameter name", lambda: net.register_parameter("a.b", nn.Parameter(torch.ones(1))))
show_err("  a tensor as parameter", lambda: net.register_parameter("c", torch.ones(1)))
show_err("  bad buffer value", lambda: net.register_buffer("d", 3))
for h in handles:
    h.remove()

print("hooks that replace the value:")
def double_params(module, name, param):
    print(f"  double_params sees {name} = {describe(param)}")
    with torch.no_grad():
        return nn.Parameter(param * 2)
def freeze(module, name, param):
    print(f"  freeze sees {name} = {describe(param)}, requires_grad={param.requires_grad}")
    param.requires_grad_(False)
def as_float64(module, name, buf):
    return None if buf is None else buf.double()
def wrap_in_sequential(module, name, sub):
    if isinstance(sub, nn.Linear) and not isinstance(module, nn.Sequential):
        return nn.Sequential(sub, nn.Tanh())
hs = [register_module_parameter_registration_hook(double_params),
      register_module_parameter_registration_hook(freeze),
      register_module_buffer_registration_hook(as_float64),
      register_module_module_registration_hook(wrap_in_sequential)]
m = nn.Module()
p = nn.Parameter(torch.tensor([1.0, 2.0]))
m.p = p
print("registered is a new object:", m.p is not p, "| original unchanged:", p.tolist(),
      "| values:", m.p.tolist(), "| requires_grad:", m.p.requires_grad)
m.register_buffer("b", torch.tensor([1.0]))
print("buffer is float64:", m.b.dtype == torch.float64)
m.lin = nn.Linear(1, 1)
print("child:", type(m.lin).__name__, [type(c).__name__ for c in m.lin])
print("named_parameters:", [(n, p.requires_grad) for n, p in m.named_parameters()])
for h in hs:
    h.remove()
m.q = nn.Parameter(torch.tensor([5.0]))
print("after remove:", m.q.tolist(), m.q.requires_grad)
