# https://dev-discuss.pytorch.org/t/torchdispatchmode-for-debugging-testing-and-more/717
# modes carry state: a LoggingMode writing to its own logger object, two of them at once.
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class Logger:
    def __init__(self, name):
        self.name = name
        self.records = []

    def log(self, op, args, kwargs):
        shapes = [tuple(a.shape) for a in args if isinstance(a, torch.Tensor)]
        self.records.append((op, shapes))


class LoggingMode(TorchDispatchMode):
    def __init__(self, logger):
        self.logger = logger
        return super().__init__()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.logger.log(f"{func.__module__}.{func.__name__}", args, kwargs)
        return func(*args, **(kwargs or {}))


outer, inner = Logger("outer"), Logger("inner")
a = torch.arange(6.0).reshape(2, 3)
b = torch.ones(3, 2)
with LoggingMode(outer):
    c = a @ b
    with LoggingMode(inner):
        d = c.relu() + 1
print(d)
for logger in (outer, inner):
    print(logger.name)
    for record in logger.records:
        print("  ", record)
