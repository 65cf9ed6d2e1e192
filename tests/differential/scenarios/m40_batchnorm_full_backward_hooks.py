"""m40: BatchNorm under module full backward (pre-)hooks, in train and eval mode.

Intent: BatchNorm1d is one op (NativeBatchNormBackward0) whose input gradient in
training mode mixes the whole batch (the batch mean and variance depend on every
sample) while in eval mode it is a per-channel scale. Full backward hooks see
grad_output / grad_input around it; a pre-hook that replaces grad_output changes
what the layer and everything before it receive; a hook that returns a new
grad_input changes only what flows further back. Buffers: running statistics and
num_batches_tracked move in training only, and are in the state_dict.
"""
import torch
import torch.nn as nn

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

def rs(ts):
    return [None if t is None else r(t) for t in ts]

lin = nn.Linear(2, 2)
bn = nn.BatchNorm1d(2, momentum=0.5)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -0.5], [0.25, 2.0]]))
    lin.bias.copy_(torch.tensor([0.0, 0.5]))
    bn.weight.copy_(torch.tensor([1.5, 0.5]))
    bn.bias.copy_(torch.tensor([0.1, -0.1]))
model = nn.Sequential(lin, bn, nn.ReLU())
print(model)
print("state_dict:", list(model.state_dict()))
print("buffers:", [(n, b.dtype == torch.int64, b.requires_grad) for n, b in model.named_buffers()])

handles = [
    bn.register_full_backward_pre_hook(lambda m, go: print("  bn pre-hook grad_output", rs(go))),
    bn.register_full_backward_hook(lambda m, gi, go: print("  bn hook grad_input", rs(gi), "grad_output",
                                                           rs(go))),
]
lin.register_full_backward_hook(lambda m, gi, go: print("  lin hook grad_output", rs(go)))

x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], requires_grad=True)
weights = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
for mode in ("train", "eval"):
    getattr(model, mode)()
    model.zero_grad()
    x.grad = None
    y = model(x)
    print(mode, "output", r(y))
    print("  output node:", y.grad_fn.name(), "| below the ReLU:", y.grad_fn.next_functions[0][0].name())
    (y * weights).sum().backward()
    print("  x.grad", r(x.grad), "bn.weight.grad", r(bn.weight.grad), "bn.bias.grad", r(bn.bias.grad))
    print("  running_mean", r(bn.running_mean), "running_var", r(bn.running_var),
          "num_batches_tracked", bn.num_batches_tracked.item())

print("a pre-hook that doubles grad_output, a hook that zeroes the first grad_input row:")
model.train()
h1 = bn.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
h2 = bn.register_full_backward_hook(lambda m, gi, go: (gi[0] * torch.tensor([[0.0], [1.0], [1.0]]),))
x.grad = None
model.zero_grad()
(model(x) * weights).sum().backward()
print("  x.grad", r(x.grad), "bn.weight.grad", r(bn.weight.grad))
for h in (h1, h2, *handles):
    h.remove()

node = bn(x).grad_fn
print("bn node", node.name(), "eps", node._saved_eps, "training", node._saved_training,
      "save_mean", r(node._saved_result1), "save_invstd", r(node._saved_result2))
bn.eval()
node = bn(x).grad_fn
print("eval node", node.name(), "training", node._saved_training, "result1 shape",
      tuple(node._saved_result1.shape))
print("num_batches_tracked", bn.num_batches_tracked.item())
bn.reset_running_stats()
print("reset:", r(bn.running_mean), r(bn.running_var), bn.num_batches_tracked.item())
