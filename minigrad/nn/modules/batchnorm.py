"""``BatchNorm1d`` and ``BatchNorm2d`` (``torch/nn/modules/batchnorm.py``).

A batch-norm layer has up to two parameters (``weight``, ``bias``: ``affine``) and
three buffers (``running_mean``, ``running_var``, ``num_batches_tracked``:
``track_running_stats``), registered in that order, which is the order of
``state_dict()``. In training mode each call counts one batch and normalises with
the batch's own statistics (updating the running ones); in evaluation mode it uses the
running statistics, unless there are none (``track_running_stats=False``), in which
case the batch statistics are used in both modes.
"""
from ... import _creation, dtypes as _dtypes
from .. import functional as F
from .. import init
from ..parameter import (Parameter as _Parameter, UninitializedBuffer as _UninitializedBuffer,
                         UninitializedParameter as _UninitializedParameter)
from .lazy import LazyModuleMixin as _LazyModuleMixin
from .module import Module as _Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "LazyBatchNorm1d", "LazyBatchNorm2d"]


class _BatchNorm(_Module):
    """What ``BatchNorm1d`` and ``BatchNorm2d`` share (PyTorch's ``_NormBase`` and
    ``_BatchNorm``); the subclasses only check the input's number of dims."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = _Parameter(_creation.empty(num_features, **factory_kwargs))
            if bias:
                self.bias = _Parameter(_creation.empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", _creation.ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked",
                                 _creation.tensor(0, dtype=_dtypes.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, no batch counted (in place)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """:meth:`reset_running_stats`, then weight 1 and bias 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """A checkpoint of version 1 (``_metadata``), or one without metadata, predates
        ``num_batches_tracked``: keep the current count (0 when fresh), as PyTorch does,
        instead of reporting the key missing."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            state_dict.setdefault(prefix + "num_batches_tracked", self.num_batches_tracked)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:       # cumulative average: batch k weighs 1/k
                factor = 1.0 / float(self.num_batches_tracked.item())
        # Batch statistics in training, and in evaluation when there are no running ones.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        # The running statistics are passed when they are read (evaluation) or updated.
        pass_stats = not self.training or self.track_running_stats
        return F.batch_norm(input,
                            self.running_mean if pass_stats else None,
                            self.running_var if pass_stats else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """``torch.nn.BatchNorm1d``: inputs ``[N, C]`` or ``[N, C, L]``."""

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """``torch.nn.BatchNorm2d``: inputs ``[N, C, H, W]``."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class _LazyNormBase(_LazyModuleMixin, _BatchNorm):
    """A batch norm whose ``num_features`` comes from its first input (dim 1): weight, bias
    and running statistics start as placeholders (PyTorch's ``_LazyNormBase``)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, **factory_kwargs)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = _UninitializedParameter(**factory_kwargs)
            self.bias = _UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = _UninitializedBuffer(**factory_kwargs)
            self.running_var = _UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = _creation.tensor(0, dtype=_dtypes.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """``nn.LazyBatchNorm1d()``: becomes a ``BatchNorm1d`` on its first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """``nn.LazyBatchNorm2d()``: becomes a ``BatchNorm2d`` on its first input."""

    cls_to_become = BatchNorm2d
