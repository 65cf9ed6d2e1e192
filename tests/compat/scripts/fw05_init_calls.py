# Counting and patching the in-place Tensor methods that initialisation calls, as
# reproducibility and "deferred init" code does (torchdistx's deferred_init, fairseq's
# init checks, forum threads on "why does nn.Linear call uniform_ twice"): every layer's
# reset_parameters and every nn.init function, with what they draw checked by shape,
# bounds and structure (the generators differ).
import math
import warnings

import torch
import torch.nn as nn

calls = []
originals = {name: getattr(torch.Tensor, name) for name in ("uniform_", "normal_", "fill_", "zero_")}


def recording(name):
    def method(self, *args, **kwargs):
        calls.append((name, tuple(self.shape), args, kwargs))
        return originals[name](self, *args, **kwargs)
    return method


for name in originals:
    setattr(torch.Tensor, name, recording(name))

torch.manual_seed(0)
layers = [nn.Linear(3, 2), nn.Linear(4, 5, bias=False), nn.Conv2d(2, 3, 3), nn.Embedding(4, 2, padding_idx=1),
          nn.BatchNorm1d(3), nn.LayerNorm(4), nn.Linear(0, 2)]
for call in calls:
    print(call)
print(len(calls), "calls while building", len(layers), "layers")
calls.clear()
layers[0].reset_parameters()
print(calls)
calls.clear()

w = torch.empty(6, 4)
for fn, kwargs in ((nn.init.uniform_, dict(a=-0.5, b=0.5)), (nn.init.normal_, dict(std=0.02)),
                   (nn.init.xavier_uniform_, dict(gain=nn.init.calculate_gain("tanh"))),
                   (nn.init.xavier_normal_, {}), (nn.init.kaiming_uniform_, dict(nonlinearity="relu")),
                   (nn.init.kaiming_normal_, dict(mode="fan_out", a=0.1)), (nn.init.constant_, dict(val=0.3)),
                   (nn.init.ones_, {}), (nn.init.zeros_, {})):
    out = fn(w, **kwargs)
    print(fn.__name__, out is w, calls[-1][0], calls[-1][2], calls[-1][3])
print(nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04) is w, bool((w.abs() <= 0.04).all()))
print([c[0] for c in calls[-3:]][:1])
torch.Tensor.uniform_, torch.Tensor.normal_ = originals["uniform_"], originals["normal_"]
torch.Tensor.fill_, torch.Tensor.zero_ = originals["fill_"], originals["zero_"]

q = nn.init.orthogonal_(torch.empty(3, 5), gain=2.0)
print(torch.allclose(q @ q.T, 4 * torch.eye(3), atol=1e-5))
print(nn.init.eye_(torch.empty(2, 3)))
print(nn.init.dirac_(torch.empty(2, 2, 3)))
s = nn.init.sparse_(torch.empty(5, 3), sparsity=0.4)
print((s == 0).sum(dim=0).tolist())
for gain in ("linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"):
    print(gain, nn.init.calculate_gain(gain))
print(nn.init.calculate_gain("leaky_relu", 0.2))
print(nn.init._calculate_fan_in_and_fan_out(torch.empty(5, 3, 2, 2)))
for bad in (lambda: nn.init.calculate_gain("swish"), lambda: nn.init.calculate_gain("leaky_relu", True),
            lambda: nn.init.kaiming_uniform_(torch.empty(2, 2), mode="fan_avg"),
            lambda: nn.init.xavier_uniform_(torch.empty(3)), lambda: nn.init.eye_(torch.empty(2, 2, 2)),
            lambda: nn.init.dirac_(torch.empty(3, 3)), lambda: nn.init.orthogonal_(torch.empty(4))):
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.init.uniform(torch.empty(2))
    nn.init.kaiming_uniform_(torch.empty(0, 3))
print([(w.category.__name__, str(w.message)) for w in caught])
bound = 1 / math.sqrt(3)
print(bool((layers[0].weight.abs() <= bound).all()), bool((layers[0].bias.abs() <= bound).all()))
print(layers[3].weight[1], layers[4].weight, layers[5].bias)
