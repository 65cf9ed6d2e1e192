# Run something once the whole backward pass is over: Variable._execution_engine.queue_callback.
import torch
from torch.autograd import Variable

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 2).sum()
events = []

def hook(grad):
    events.append("hook")
    Variable._execution_engine.queue_callback(lambda: events.append(f"callback, x.grad={x.grad.tolist()}"))
    return grad

x.register_hook(hook)
y.backward()
print(events)
