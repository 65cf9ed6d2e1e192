# Lazy modules as tutorials and model zoos use them (the PyTorch docs' LazyModuleMixin page,
# d2l.ai's "Lazy Initialization" chapter): placeholders before the first batch, the
# initialising forward pre-hook, the class swap, counting parameters afterwards,
# state_dict round trips, and the errors of touching a placeholder.
import torch
import torch.nn as nn
from torch.nn.parameter import UninitializedBuffer, UninitializedParameter

net = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(),
                    nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(2))
print(net)
print([type(p).__name__ for p in net.parameters()], net[4].has_uninitialized_params())
print(net[4].weight, net[1].running_mean, net[1].num_batches_tracked, net[4].in_features)
print(len(net[4]._forward_pre_hooks), isinstance(net[4].weight, nn.Parameter), isinstance(net[0], nn.Conv2d))
print(list(net.state_dict().items())[:2])
for touch in (lambda: net[4].weight.shape, lambda: net[4].weight + 1, lambda: net[4].weight.sum(),
              lambda: net[0].weight @ torch.ones(2)):
    try:
        touch()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__ + ":", str(e)[:120])

order = []
net[4].register_forward_pre_hook(lambda m, args: order.append(("user pre-hook", type(m).__name__)))
x = torch.linspace(-1, 1, 2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
y = net(x)
print(y.shape, order)
print(net)
print([(name, tuple(p.shape), type(p).__name__) for name, p in net.named_parameters()])
print(sum(p.numel() for p in net.parameters()), len(net[4]._forward_pre_hooks), net[1].num_batches_tracked)
print(type(net[4]).__name__, net[4].in_features, hasattr(net[4], "_initialize_hook"))

fresh = nn.LazyLinear(3)
fresh.load_state_dict(nn.Linear(5, 3).state_dict())
print(type(fresh).__name__, fresh.weight.shape, type(fresh.weight).__name__, fresh.in_features)
print(fresh(torch.ones(1, 5)).shape, type(fresh).__name__, fresh.in_features)

p = UninitializedParameter()
print(p, p.requires_grad, p.dtype, p.device, isinstance(p, nn.Parameter))
p.materialize((2, 3))
print(type(p).__name__, p.shape, p.requires_grad)
b = UninitializedBuffer(dtype=torch.float64)
print(b, b.requires_grad, b.dtype)
b.materialize((4,))
print(type(b).__name__, b.shape, b.dtype)
opt = torch.optim.SGD(nn.LazyLinear(2, bias=False).parameters(), lr=0.1)
print(len(opt.param_groups[0]["params"]), nn.LazyLinear(2, bias=False))
with torch.no_grad():
    for param in net.parameters():
        param.copy_(torch.linspace(-0.5, 0.5, param.numel()).reshape(param.shape))
net[1].reset_running_stats()
net.eval()
print(net(x))
