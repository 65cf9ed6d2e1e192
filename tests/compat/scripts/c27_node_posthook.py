# A post-hook on a node sees grad_inputs and grad_outputs.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b

def post(grad_inputs, grad_outputs):
    print("node:", c.grad_fn.name())
    print("grad_inputs:", grad_inputs)
    print("grad_outputs:", grad_outputs)
    return (grad_inputs[0] * 10, grad_inputs[1])

c.grad_fn.register_hook(post)
c.sum().backward()
print(a.grad, b.grad)
d = a * 2
d.grad_fn.register_hook(lambda gi, go: print(len(gi), gi[1] if len(gi) > 1 else None))
d.sum().backward()
