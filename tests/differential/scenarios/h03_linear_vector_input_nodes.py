"""h03: the nodes F.linear records for an input that is not 2-D.

Found by tests/test_random_hook_programs.py (shrunk: a node pre-hook on the output of an
nn.Linear fed a vector). With a bias, PyTorch treats any contiguous input the same way:
it is viewed as a matrix (ViewBackward0), goes through one addmm (AddmmBackward0), and
the result is viewed back (ViewBackward0). Only a non-contiguous input takes the
matmul-then-add route. A hook placed on ``y.grad_fn`` therefore sits on a ViewBackward0,
and the saved tensors are the flattened input and the transposed weight.
"""
import torch

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

def walk(node, depth=1):
    if node is None:
        return
    print("  " * depth + node.name())
    for child, _ in node.next_functions:
        walk(child, depth + 1)

lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]]))
    lin.bias.copy_(torch.tensor([0.5, -0.5]))

x3 = torch.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[0.5, 0.0, -1.0], [2.0, 1.0, 0.0]]],
                  requires_grad=True)
for label, inp in (("vector", torch.tensor([1.0, -2.0, 0.5], requires_grad=True)),
                   ("3-D contiguous", x3),
                   ("3-D with a size-1 dim moved (still contiguous)", x3[:1].permute(1, 0, 2)),
                   ("3-D permuted (not contiguous)", x3.permute(1, 0, 2))):
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t,
                                                  lambda t: t):
        y = lin(inp)
    print(label, "->", tuple(y.shape), r(y))
    walk(y.grad_fn)
    print("  saved shapes", packed)
    y.grad_fn.register_prehook(lambda go: print("  pre-hook on y.grad_fn", r(go[0])))
    y.sum().backward()
    print("  weight.grad", r(lin.weight.grad))
    lin.weight.grad = None
