"""o02: Module.load_state_dict(): its hooks, its return value and its errors.

Intent: load_state_dict copies the dict (an OrderedDict keeping _metadata) and walks
the tree; each module runs its load pre-hooks, copies its own tensors, then its
children load (each gets only the keys under its prefix), then its post-hooks run.
Traps: a pre-hook's `strict` is always True (missing keys are collected either way;
the strict flag only decides whether to raise at the end); missing_keys,
unexpected_keys and error_msgs are the same lists for the whole tree; local_metadata
is {} for a dict without _metadata; a pre-hook that renames keys converts an old
checkpoint (the caller's dict is untouched); a post-hook that empties the
incompatible keys avoids the strict error, and one that returns a value raises
AssertionError; the error message lists missing keys, then unexpected keys, then
size mismatches, and names the class; values are copied in place (the Parameter
objects stay) unless assign=True; a [1]-shaped value loads into a 0-dim buffer.
"""
import re
from collections import OrderedDict

import torch
import torch.nn as nn

def show_err(label, fn):
    """The result, or the error; shapes print as Size([..]) (the framework's prefix dropped)."""
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", re.sub(r"\w+\.Size", "Size", str(e)))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.head = nn.Sequential(nn.Linear(2, 1))
        self.register_buffer("scale", torch.tensor(1.5))
        self.register_buffer("tmp", torch.zeros(1), persistent=False)

def make(offset=0.0):
    net = Net()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) + offset)
    return net

src = make(1.0)
dst = make()

def pre(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    print(f"  pre  {type(module).__name__} prefix={prefix!r} metadata={local_metadata} strict={strict} "
          f"keys={list(state_dict)} missing={missing_keys} unexpected={unexpected_keys}")

def post(module, incompatible_keys):
    print(f"  post {type(module).__name__} {incompatible_keys}")

for m in (dst, dst.fc, dst.head, dst.head[0]):
    m.register_load_state_dict_pre_hook(pre)
    m.register_load_state_dict_post_hook(post)

sd = src.state_dict()
weight_before = dst.fc.weight
print("load, strict:")
print("result:", dst.load_state_dict(sd))
print("same Parameter object:", dst.fc.weight is weight_before, "| values:", dst.fc.weight.tolist())

print("load a plain dict without _metadata, one key missing and one extra, strict=False:")
plain = {k: v for k, v in sd.items() if k != "head.0.bias"}
plain["fc.extra"] = torch.ones(1)
res = dst.load_state_dict(plain, strict=False)
print("result:", res, "| missing:", res.missing_keys, "| unexpected:", res.unexpected_keys)

print("the same, strict:")
show_err("load_state_dict", lambda: dst.load_state_dict(plain))

for m in (dst, dst.fc, dst.head, dst.head[0]):
    m._load_state_dict_pre_hooks.clear()
    m._load_state_dict_post_hooks.clear()

print("size mismatch and a non-tensor value:")
bad = dict(sd)
bad["fc.weight"] = torch.zeros(3, 2)
bad["fc.bias"] = [0.0, 0.0]
show_err("load_state_dict", lambda: dst.load_state_dict(bad))
print("not a mapping:")
show_err("load_state_dict", lambda: dst.load_state_dict([1, 2]))

print("a pre-hook renames the keys of an old checkpoint:")
old = OrderedDict((k.replace("fc.", "linear."), v) for k, v in sd.items())
def rename(module, state_dict, prefix, *rest):
    for key in list(state_dict):
        if key.startswith(prefix + "linear."):
            state_dict[prefix + "fc." + key[len(prefix + "linear."):]] = state_dict.pop(key)
h = dst.register_load_state_dict_pre_hook(rename)
print("result:", dst.load_state_dict(old), "| caller's keys unchanged:", list(old)[:2])
h.remove()

print("the private form without the module:")
h = dst._register_load_state_dict_pre_hook(
    lambda state_dict, prefix, *rest: print("  got prefix", repr(prefix), "and", len(rest), "more"))
dst.load_state_dict(sd)
h.remove()

print("a post-hook that forgives missing keys:")
def forgive(module, incompatible_keys):
    incompatible_keys.missing_keys.clear()
h = dst.register_load_state_dict_post_hook(forgive)
print("result:", dst.load_state_dict({k: v for k, v in sd.items() if not k.startswith("head")}))
h.remove()
h = dst.register_load_state_dict_post_hook(lambda m, k: "oops")
show_err("post-hook returning a value", lambda: dst.load_state_dict(sd))
h.remove()

print("0-dim buffer from a [1]-shaped value:")
one = dict(sd)
one["scale"] = torch.tensor([4.0])
print(dst.load_state_dict(one), dst.scale.tolist(), tuple(dst.scale.shape))

print("assign=True:")
fresh = make(2.0).state_dict()
w = dst.fc.weight
print(dst.load_state_dict(fresh, assign=True), "| new object:", dst.fc.weight is not w,
      "| is the checkpoint's tensor:", dst.fc.weight.data_ptr() == fresh["fc.weight"].data_ptr(),
      "| Parameter:", isinstance(dst.fc.weight, nn.Parameter),
      "| requires_grad:", dst.fc.weight.requires_grad)

print("BatchNorm: a version-1 checkpoint has no num_batches_tracked:")
bn = nn.BatchNorm1d(2)
bn.num_batches_tracked.fill_(7)
old_bn = bn.state_dict()
del old_bn["num_batches_tracked"]
old_bn._metadata[""]["version"] = 1
print(nn.BatchNorm1d(2).load_state_dict(old_bn))
del old_bn._metadata
show_err("without metadata", lambda: nn.BatchNorm1d(2).load_state_dict(old_bn))
old_bn = bn.state_dict()
del old_bn["num_batches_tracked"]
show_err("version 2 without the key", lambda: nn.BatchNorm1d(2).load_state_dict(old_bn))
