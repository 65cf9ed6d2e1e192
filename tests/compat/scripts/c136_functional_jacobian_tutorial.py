# https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html
# "The Fundamentals of Autograd": the high-level torch.autograd.functional API on exp_adder, jacobian then vjp
# and hvp.
import torch


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.tensor([0.25]), torch.tensor([0.75]))
print(torch.autograd.functional.jacobian(exp_adder, inputs))

inputs = (torch.tensor([0.1, 0.2, 0.3]), torch.tensor([1.0, 2.0, 3.0]))
print(torch.autograd.functional.jacobian(exp_adder, inputs))


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


inputs = torch.tensor([0.5, -1.0, 2.0])
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
print(torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients))
print(torch.autograd.functional.hvp(lambda x: (x ** 3).sum(), inputs, torch.ones(3)))
