"""m25: The graph as data: next_functions, input_nr, AccumulateGrad.variable.

Intent: walk a small graph depth-first and print each node's name and its edges
as (name or None, input_nr). Scalar operands and tensors that do not require
grad give (None, 0); a leaf's AccumulateGrad is shared by all its uses and
.variable is the leaf itself; a multi-output op (unbind) gives edges with
input_nr 0, 1, 2 to the SAME node.
"""
import torch

def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)

def r(t, n=4):
    """t.tolist() rounded to n places (float32 noise differs between numpy and torch); -0.0 -> 0.0."""
    v = t.tolist() if hasattr(t, "tolist") else t
    def rnd(u):
        if isinstance(u, list):
            return [rnd(w) for w in u]
        return round(u, n) + 0.0 if isinstance(u, float) else u
    return rnd(v)

x = torch.tensor([1., 2., 3.], requires_grad=True)
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
k = torch.tensor([2., 2., 2.])          # does not require grad
parts = (x * w).unbind()
y = (parts[0] * 2 + parts[2] * k[0]) - x.sum() / 3
z = torch.stack([y, parts[1]]).sum()

seen = {}
def walk(node, depth=0):
    if node is None:
        print("  " * depth + "None")
        return
    tag = seen.setdefault(node, len(seen))
    edges = [(None if n is None else n.name(), i) for n, i in node.next_functions]
    print("  " * depth + f"#{tag} {node.name()} -> {edges}")
    if node.name() == "torch::autograd::AccumulateGrad":
        v = node.variable
        print("  " * depth + f"   variable is x: {v is x}, is w: {v is w}")
        return
    for n, _ in node.next_functions:
        if n is not None and n in seen:
            print("  " * (depth + 1) + f"(#{seen[n]} again)")
        else:
            walk(n, depth + 1)

walk(z.grad_fn)
u0, u1, u2 = parts
print("unbind outputs share one node:", u0.grad_fn is u1.grad_fn is u2.grad_fn)
acc1 = (x * 1).grad_fn.next_functions[0][0]
acc2 = (x + 1).grad_fn.next_functions[0][0]
print("AccumulateGrad shared while alive:", acc1 is acc2, "next_functions", acc1.next_functions)
print("metadata is a dict:", type(z.grad_fn.metadata).__name__, z.grad_fn.metadata)
