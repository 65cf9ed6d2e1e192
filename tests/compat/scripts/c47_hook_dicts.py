# Inspect and clear a module's hook dictionaries, as utility code sometimes does.
import torch.nn as nn

m = nn.Linear(2, 2)
h1 = m.register_forward_hook(lambda *a: None)
h2 = m.register_forward_pre_hook(lambda *a: None)
h3 = m.register_full_backward_hook(lambda *a: None)
print(len(m._forward_hooks), len(m._forward_pre_hooks), len(m._backward_hooks))
print(list(m._forward_hooks.keys()) == [h1.id])
h1.remove()
print(len(m._forward_hooks))
m._forward_pre_hooks.clear()
print(m._forward_pre_hooks)
with h3:
    pass
print(len(m._backward_hooks))
print(type(m._forward_hooks).__name__)
