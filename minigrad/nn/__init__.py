"""``minigrad.nn``: modules with PyTorch's hooks, layers, losses (``torch.nn``).

``nn.Module`` and every module-level hook live in ``nn/modules/module.py``;
``nn.functional`` holds the layer ops; ``nn.Parameter`` is in ``nn/parameter.py``.
"""
from .parameter import Buffer, Parameter
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional, init, modules, parallel, utils  # noqa: F401  (minigrad.nn.modules, as torch.nn.modules)
from .parallel import DataParallel

__all__ = ["Parameter", "Buffer", "DataParallel", "functional", "init", "parallel", "utils", *_modules_all]
