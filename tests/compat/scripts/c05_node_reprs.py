# Print grad_fn objects and next_functions the way forum answers do.
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
print(Q.grad_fn)
print(Q.grad_fn.next_functions)
for fn, idx in Q.grad_fn.next_functions:
    print(fn, idx)
print(Q.grad_fn.next_functions[0][0].next_functions)
acc = Q.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(acc)
print(acc.variable is a)
print(a.grad_fn, a.is_leaf, Q.is_leaf)
