# TorchScript-ready model code run eagerly, in the style of torchvision's models and the
# PyTorch docs' "TorchScript language reference": @torch.jit.unused / ignore / export
# methods, is_scripting()/is_tracing() branches, annotate, Final, jit.isinstance,
# fork/wait, _overload_method and script_if_tracing helpers.
import warnings
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)


@torch.jit.script_if_tracing
def pad_to_even(x: Tensor) -> Tensor:
    return x if x.shape[-1] % 2 == 0 else torch.cat([x, torch.zeros(x.shape[0], 1)], dim=1)


class Block(nn.Module):
    scale: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = 0.5
        with torch.no_grad():
            self.fc.weight.copy_(torch.linspace(-1, 1, 16).reshape(4, 4))
            self.fc.bias.fill_(0.1)

    @torch.jit.unused
    def checkpointed(self, x: Tensor) -> Tensor:
        return self.fc(x) * 2

    @torch.jit.ignore
    def log_shapes(self, x) -> None:
        print("log_shapes (python only):", tuple(x.shape))

    @torch.jit.export
    def extra(self, x: Tensor) -> Tensor:
        return x.sum(dim=1)

    @torch.jit._overload_method
    def forward(self, x: Tensor) -> Tensor:
        pass

    def forward(self, x):  # noqa: F811 (the overload's implementation)
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            out = self.fc(x)
        else:
            self.log_shapes(x)
            out = self.checkpointed(x)
        feats = torch.jit.annotate(List[Tensor], [])
        feats.append(out * self.scale)
        return feats[0]


block = Block()
x = torch.arange(8.0).reshape(2, 4) / 8
y = block(x)
print(y)
print(block.extra(y))
print(pad_to_even(torch.ones(2, 3)).shape, pad_to_even(torch.ones(2, 2)).shape)
print(torch.jit.is_scripting(), torch.jit.is_tracing())
for value, kind in (([1, 2], List[int]), ([1, "a"], List[int]), ({"a": torch.ones(1)}, Dict[str, Tensor]),
                    ((1, 2.0), Tuple[int, float]), (None, Optional[int]), (3, Optional[int])):
    print(torch.jit.isinstance(value, kind))
futures = [torch.jit.fork(block.extra, x * i) for i in range(3)]
print([torch.jit.wait(f).tolist() for f in futures])
print(torch.jit.annotate(Optional[Tensor], None), isinstance(block, torch.jit.ScriptModule))
print(Block.checkpointed._torchscript_modifier, Block.extra._torchscript_modifier)
y.sum().backward()
print(block.fc.weight.grad)
