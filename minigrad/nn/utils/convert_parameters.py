"""Parameters as one flat vector and back (``torch/nn/utils/convert_parameters.py``)."""
from ..._creation import cat as _cat
from ..._tensor import Tensor as _Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """``torch.nn.utils.parameters_to_vector``: every tensor flattened (``view(-1)``)
    and concatenated, in iteration order; differentiable (``CatBackward0``)."""
    return _cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """``torch.nn.utils.vector_to_parameters``: the inverse; each parameter's ``.data``
    becomes its slice of ``vec`` (shared storage, as in PyTorch)."""
    if not isinstance(vec, _Tensor):
        kind = type(vec)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"expected torch.Tensor, but got: {name}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
