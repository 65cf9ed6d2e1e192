# Count steps of every optimizer with global step hooks (a profiler-style use).
from collections import Counter

import torch
import torch.nn as nn
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

calls = Counter()
order = []
pre = register_optimizer_step_pre_hook(lambda opt, args, kwargs: order.append(f"pre {type(opt).__name__}"))
post = register_optimizer_step_post_hook(lambda opt, args, kwargs: calls.update([type(opt).__name__]))

encoder, decoder = nn.Linear(2, 2), nn.Linear(2, 1)
opt_enc = torch.optim.Adam(encoder.parameters(), lr=0.01)
opt_dec = torch.optim.SGD(decoder.parameters(), lr=0.1)
opt_dec.register_step_pre_hook(lambda opt, args, kwargs: order.append("local pre SGD"))
x = torch.tensor([[0.5, -0.5]])
for _ in range(3):
    opt_enc.zero_grad()
    opt_dec.zero_grad()
    decoder(encoder(x)).sum().backward()
    opt_enc.step()
    opt_dec.step()
print(dict(calls))
print(order[:4])
pre.remove()
post.remove()
opt_enc.step()
print(dict(calls), len(order))
print(type(opt_enc).step.__name__, getattr(type(opt_enc).step, "hooked", False))
