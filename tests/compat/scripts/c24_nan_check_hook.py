# Detect NaN / inf gradients with a hook, as people do when training diverges.
import torch

def check(name):
    def hook(grad):
        if torch.isnan(grad).any():
            print(f"NaN gradient in {name}: {grad}")
        elif torch.isinf(grad).any():
            print(f"inf gradient in {name}")
        else:
            print(f"{name} ok")
    return hook

x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
x.register_hook(check("x"))
y = torch.sqrt(x)
y.register_hook(check("y"))
y.sum().backward()
print(x.grad)
print(torch.isnan(x.grad))
print(torch.isfinite(x.grad).all())
