"""h04: two leaves whose stolen gradients share one buffer.

Found by tests/test_random_hook_programs.py (it had to leave the pattern out until this
matched). AccumulateGrad steals the incoming gradient when nothing but the engine holds
it and it is laid out like the leaf, and it checks the *Tensor* it receives, not the
memory behind it. ``stack([b, a]).sum(0)`` sends back one row expanded to two
(``SumBackward1``), and ``StackBackward0`` hands each leaf a row of that expanded tensor:
two different Tensors over the same memory, both stolen. So ``a.grad`` and ``b.grad``
share memory, and the next pass adds in place into it twice: 2 + 2 + 2 = 6 for both,
not 4. The traps: copying a gradient because it is a view of a broadcast (numpy marks
those read-only), and treating every view of an expand alike (``stack(...).sum()``
sends back rows with stride 0, which break the layout contract and are copied).
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

def two_leaves():
    return torch.tensor([1., 2.], requires_grad=True), torch.tensor([3., 4.], requires_grad=True)

def show(label, a, b):
    print(label, "a.grad", r(a.grad), "b.grad", r(b.grad), "| shared", a.grad.data_ptr() == b.grad.data_ptr())

print("1. stack([b, a]).sum(0), y = s + s: the rows of one expanded buffer are stolen")
a, b = two_leaves()
s = torch.stack([b, a]).sum(0)
y = s + s
y.sum().backward(retain_graph=True)
show("  first pass ", a, b)
y.sum().backward(retain_graph=True)
show("  second pass", a, b)
a.grad.zero_()
show("  a.grad.zero_()", a, b)
a.grad = None
y.sum().backward()
show("  a.grad = None, third pass", a, b)

print("2. stack([b, a]).sum(): every element is one value (stride 0): copied, not shared")
a, b = two_leaves()
y = torch.stack([b, a]).sum()
y.backward(retain_graph=True)
y.backward()
show("  two passes ", a, b)

print("3. (stack([b, a]) * 3).sum(0): rows of a fresh buffer, stolen but not shared")
a, b = two_leaves()
y = (torch.stack([b, a]) * 3).sum(0).sum()
y.backward(retain_graph=True)
y.backward()
show("  two passes ", a, b)

print("4. a hook on b keeps its gradient: b's is copied, a's is still the buffer's row")
a, b = two_leaves()
kept = []
b.register_hook(kept.append)
s = torch.stack([b, a]).sum(0)
(s + s).sum().backward(retain_graph=True)
show("  first pass ", a, b)
print("  b.grad is kept's memory", b.grad.data_ptr() == kept[0].data_ptr(),
      "| a.grad is", a.grad.data_ptr() == kept[0].data_ptr())
(s + s).sum().backward()
show("  second pass", a, b)
print("  kept[0]", r(kept[0]))
