# What does each backward node keep? List the _saved_ attributes like torchviz does.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
exprs = {
    "mul": x * y,
    "pow": x ** 3,
    "exp": torch.exp(x),
    "sum": x.sum(),
    "div": x / y,
}
for name, out in exprs.items():
    fn = out.grad_fn
    saved = [a for a in dir(fn) if a.startswith("_saved_")]
    print(name, fn.name(), saved)
    for attr in saved:
        val = getattr(fn, attr)
        if torch.is_tensor(val):
            print(f"  {attr}: tensor {tuple(val.shape)} {val.tolist()}")
        else:
            print(f"  {attr}: {val}")
print((x * y).grad_fn._saved_self is x)
print(torch.equal((x * y).grad_fn._saved_other, y))
