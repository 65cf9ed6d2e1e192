"""o01: Module.state_dict() hooks on nested modules, and the dict's _metadata.

Intent: state_dict() visits the tree depth first; at each module it runs the
pre-hooks (module, prefix, keep_vars) before adding the module's own tensors and
the post-hooks (module, state_dict, prefix, local_metadata) after its children,
so pre-hooks fire outer first and post-hooks inner first. The prefix is the
module's dotted path with a trailing dot ("" for the root). local_metadata is
{"version": module._version} (2 for BatchNorm), also stored under the prefix
without its dot in state_dict._metadata. Traps: a post-hook sees (and may edit) the
whole dict, keys of other modules included; a public post-hook that returns a
value raises RuntimeError; the private _register_state_dict_hook may return a new
dict, which counts only on the module state_dict() was called on; the same
function cannot be registered through both APIs; keep_vars=True keeps Parameters.
"""
import torch
import torch.nn as nn

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
inner = model[1]
bn = inner[1]

def pre(name):
    def hook(module, prefix, keep_vars):
        print(f"  pre  {name}: {type(module).__name__} prefix={prefix!r} keep_vars={keep_vars}")
    return hook

def post(name):
    def hook(module, state_dict, prefix, local_metadata):
        print(f"  post {name}: prefix={prefix!r} metadata={local_metadata} keys so far={list(state_dict)}")
    return hook

handles = []
for name, m in (("root", model), ("inner", inner), ("bn", bn), ("lin0", model[0])):
    handles.append(m.register_state_dict_pre_hook(pre(name)))
    handles.append(m.register_state_dict_post_hook(post(name)))

print("state_dict():")
sd = model.state_dict()
print("keys:", list(sd))
print("_metadata:", dict(sd._metadata))
print("type:", type(sd).__name__, "| values are Parameters:", isinstance(sd["0.weight"], nn.Parameter),
      "| requires_grad:", sd["0.weight"].requires_grad)

print("state_dict(keep_vars=True, prefix='net.'):")
sd2 = model.state_dict(prefix="net.", keep_vars=True)
print("keys:", list(sd2))
print("_metadata:", dict(sd2._metadata))
print("values are Parameters:", isinstance(sd2["net.0.weight"], nn.Parameter))
for h in handles:
    h.remove()

print("a given destination (a plain dict, no _metadata):")
dest = {}
out = model.state_dict(destination=dest)
print("same object:", out is dest, "| has _metadata:", hasattr(out, "_metadata"), "| keys:", list(out))

print("post-hook that renames and drops keys in place:")
def rename(module, state_dict, prefix, local_metadata):
    for key in list(state_dict):
        if key.startswith(prefix) and key.endswith("num_batches_tracked"):
            del state_dict[key]
    state_dict[prefix + "note"] = torch.tensor([float(local_metadata["version"])])
h = bn.register_state_dict_post_hook(rename)
sd = model.state_dict()
print("keys:", list(sd), "| note:", sd["1.1.note"].tolist())
h.remove()

print("public post-hook returning a value:")
h = model.register_state_dict_post_hook(lambda m, sd, p, md: {"x": 1})
show_err("  state_dict()", model.state_dict)
h.remove()

print("private _register_state_dict_hook returning a new dict:")
h2 = inner._register_state_dict_hook(lambda m, sd, p, md: {"child": "returned"})
print("  a child's, from the root's state_dict():", list(model.state_dict())[:3], "...")
print("  the same child's, from its own state_dict():", inner.state_dict())
h1 = model._register_state_dict_hook(lambda m, sd, p, md: {"root": "returned"})
print("  the root's:", model.state_dict())
h1.remove()
h2.remove()

def both(module, state_dict, prefix, local_metadata):
    pass
model.register_state_dict_post_hook(both)
show_err("same function, private API after public", lambda: model._register_state_dict_hook(both))
print("flag on the function:", getattr(both, "_from_public_api", None))
print("hook dicts:", len(model._state_dict_hooks), len(model._state_dict_pre_hooks),
      len(model._load_state_dict_pre_hooks), len(model._load_state_dict_post_hooks))
