"""The layers of ``minigrad.nn`` (``torch/nn/modules/``)."""
from .module import Module
from .container import ModuleDict, ModuleList, Sequential
from .lazy import LazyModuleMixin
from .linear import Identity, LazyLinear, Linear
from .conv import Conv2d, LazyConv2d
from .pooling import AdaptiveAvgPool2d, MaxPool2d
from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .flatten import Flatten
from .dropout import Dropout
from .normalization import LayerNorm
from .batchnorm import BatchNorm1d, BatchNorm2d, LazyBatchNorm1d, LazyBatchNorm2d
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear", "Conv2d",
           "MaxPool2d", "AdaptiveAvgPool2d", "Embedding", "ReLU", "GELU", "Tanh", "Sigmoid",
           "Softmax", "LogSoftmax", "Flatten", "Dropout",
           "LayerNorm", "BatchNorm1d", "BatchNorm2d", "L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "LazyModuleMixin", "LazyLinear", "LazyConv2d", "LazyBatchNorm1d",
           "LazyBatchNorm2d"]
