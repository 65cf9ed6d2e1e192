"""``nn.DataParallel`` on a machine without GPUs (``torch/nn/parallel/data_parallel.py``).

PyTorch's ``DataParallel`` splits a batch over the visible GPUs; when there are none (as
for minigrad, which is CPU-only) its constructor keeps the module as ``self.module``
with ``device_ids == []`` and ``forward`` just calls it. That is all user code sees on a
CPU: a wrapper whose ``state_dict`` keys gain the ``module.`` prefix.
"""
from ..modules import module as _module

__all__ = ["DataParallel"]


class DataParallel(_module.Module):
    """``torch.nn.DataParallel(module, device_ids=None, output_device=None, dim=0)`` as
    PyTorch builds it with no GPU: ``device_ids`` is ``[]`` whatever was asked, and the
    wrapped module runs on the whole batch."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
