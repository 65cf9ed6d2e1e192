# torch.utils._pytree as library code uses it (PyTorch's own dispatch-mode examples, the
# "extending PyTorch" docs, FSDP and Hugging Face model outputs): moving a nested batch,
# mapping only tensors, flattening model outputs, registering a container class,
# key paths, and the errors of mismatched trees.
import dataclasses
from collections import OrderedDict, defaultdict, deque, namedtuple

import torch
import torch.utils._pytree as pytree
from torch.utils._pytree import tree_flatten, tree_map, tree_map_only, tree_unflatten

Batch = namedtuple("Batch", ["inputs", "labels"])
batch = {"x": Batch(torch.arange(6.0).reshape(2, 3), torch.tensor([0, 1])),
         "meta": OrderedDict(ids=[3, 4], name="train"),
         "extra": defaultdict(list, {"masks": [torch.ones(2, dtype=torch.bool)]}),
         "window": deque([torch.zeros(1)], maxlen=4), "none": None}

leaves, spec = tree_flatten(batch)
print(len(leaves), [type(leaf).__name__ for leaf in leaves])
print(spec)
print(spec.num_leaves, spec.num_nodes, spec.num_children, spec.type, spec.context, spec.is_leaf())
as_double = tree_map_only(torch.Tensor, lambda t: t.double() if t.is_floating_point() else t, batch)
print(as_double["x"].inputs.dtype, as_double["x"].labels.dtype, as_double["meta"], as_double["window"])
print(tree_unflatten(leaves, spec)["x"].labels, pytree.tree_structure(as_double) == spec)

# a model whose forward returns nested outputs, flattened for a loss over every tensor
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.linspace(-1, 1, 6).reshape(2, 3))
    lin.bias.zero_()
h = lin(batch["x"].inputs)
outputs = {"logits": h, "aux": (h.relu(), [h.tanh()])}
loss = sum(t.sum() for t in pytree.tree_leaves(outputs))
loss.backward()
print(loss, lin.weight.grad)
print(pytree.tree_map(lambda a, b: a - b, {"p": 1.0, "q": (2, 3)}, {"q": (1, 1), "p": 0.5}))
print(pytree.tree_all_only(torch.Tensor, lambda t: t.requires_grad, outputs),
      pytree.tree_any(lambda v: v is None, batch))


@dataclasses.dataclass
class ModelOutput:
    loss: object
    logits: object


pytree.register_pytree_node(
    ModelOutput, lambda o: ([o.loss, o.logits], None), lambda values, context: ModelOutput(*values),
    flatten_with_keys_fn=lambda o: ([(pytree.GetAttrKey("loss"), o.loss),
                                     (pytree.GetAttrKey("logits"), o.logits)], None))
out = ModelOutput(loss.detach(), h.detach())
flat, out_spec = tree_flatten([out, {"step": 3}])
print(out_spec)
print(tree_map(lambda v: v * 2, out).loss)
for path, leaf in pytree.tree_flatten_with_path({"out": out, "seq": [1, (2,)]})[0]:
    print(pytree.keystr(path), type(leaf).__name__)
for bad in ([1], {"p": 1, "r": 2}, (1, 2)):
    try:
        pytree.tree_map(lambda a, b: a, [1, 2] if not isinstance(bad, dict) else {"p": 1, "q": 2}, bad)
    except ValueError as e:
        print("ValueError:", e)
try:
    pytree.register_pytree_node(ModelOutput, None, None)
except ValueError as e:
    print("ValueError:", e)
print(pytree.tree_flatten(torch.arange(4.0).max(0)))
print(pytree.tree_flatten([torch.Size([2, 3])], is_leaf=lambda x: isinstance(x, torch.Size)))
