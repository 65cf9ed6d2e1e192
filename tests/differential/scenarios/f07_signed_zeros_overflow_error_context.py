"""f07: what a user's own script notices beyond the values: the sign of zero in a matrix
product, warnings on overflow, and the chain of an error.

Intent (issue 31 §2):

- a matrix product whose sum has one term ([n, 1] @ [1, m], n and m above 1) is the
  plain product, so -1 * 0 is -0.0 and prints as ``-0.``; that is the backward of every
  layer with one output (``x.grad = grad @ weight``) and of a batch of one
  (``weight.grad = grad.T @ x``). Other shapes add the products to +0.0 and print ``0.``;
- float32 overflow to inf (and NaN) is silent in forward, as it is in backward: the
  script records the warnings itself;
- operands that do not broadcast raise PyTorch's RuntimeError with no other error
  chained to it (a traceback shows one error), also when an unpack hook returned the
  wrong shape.

Tensors print with ``print`` here, not rounded through ``r()``: the sign of zero is the
point.
"""
import warnings

import torch
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks


def grads(label, x_shape, w_shape, grad_value, bias=None):
    x = torch.full(x_shape, 0.5, requires_grad=True)
    w = torch.zeros(w_shape, requires_grad=True)
    y = F.linear(x, w, bias)
    y.backward(torch.full(y.shape, grad_value))
    print(f"{label}: y {y.detach()} x.grad {x.grad} w.grad {w.grad}")


grads("linear, one output, grad -1", (3, 2), (1, 2), -1.0)
grads("linear, one output, grad +1", (3, 2), (1, 2), 1.0)
grads("linear, two outputs, grad -1", (3, 2), (2, 2), -1.0)
grads("linear, batch of one, grad -1", (1, 2), (3, 2), -1.0)
grads("linear, one output, bias", (3, 2), (1, 2), -1.0, torch.zeros(1))

a = torch.full((2, 1), -1.0, requires_grad=True)
b = torch.zeros(1, 3, requires_grad=True)
print("[2, 1] @ [1, 3]:", a @ b)
print("[1, 1] @ [1, 3]:", a[:1] @ b)
print("[2, 2] @ [2, 3]:", torch.full((2, 2), -1.0) @ torch.zeros(2, 3))
print("[4, 2, 1] @ [1, 3] (folded into one mm):", torch.full((4, 2, 1), -1.0)[:1] @ torch.zeros(1, 3))
print("bmm [3, 2, 1] @ [3, 1, 2]:", torch.full((3, 2, 1), -1.0)[:1] @ torch.zeros(3, 1, 2)[:1])
print("mv [3, 1] @ [1]:", torch.full((3, 1), -1.0) @ torch.zeros(1))
print("addmm with a -0 bias:", F.linear(torch.full((2, 1), -1.0), torch.zeros(3, 1), -torch.zeros(3)))
(a @ b).sum().backward()
print("a.grad", a.grad, "b.grad", b.grad)

big = torch.tensor([3e38, -3e38, 1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = [big * 10, big + big, big - (-big), big @ big, big.reshape(1, 3) @ big.reshape(3, 1),
               torch.tensor([3e38, 3e38]).sum(), big.prod(), F.mse_loss(big, -big),
               torch.tensor([2 ** 62]) * 1e30, torch.tensor([0.0, -1.0]).log(),
               F.linear(big.reshape(1, 3), big.reshape(1, 3), torch.tensor([1.0]))]
    sum(r.sum() for r in results[:3]).backward()
print("overflowed:", [r.tolist() for r in results])
print("big.grad", big.grad)
print("warnings in forward and backward:", [str(w.message) for w in caught])


def show_chain(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        shown = e.__cause__ or (None if e.__suppress_context__ else e.__context__)
        print(label, "->", type(e).__name__ + ":", e, "| chained to it:", type(shown).__name__)


def unpack_wrong_shape():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: torch.ones(3)):
        y = x * x
    y.sum().backward()


show_chain("ones(2) * ones(3)", lambda: torch.ones(2) * torch.ones(3))
show_chain("ones(2, 3).add_(ones(3, 2))", lambda: torch.ones(2, 3).add_(torch.ones(3, 2)))
show_chain("unpack hook returns shape [3] for mul", unpack_wrong_shape)
