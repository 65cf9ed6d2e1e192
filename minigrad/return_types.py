"""``torch.return_types``: the named tuples returned by ops with several outputs.

``values, indices = t.max(dim)`` unpacks like a tuple; ``repr`` prints one field a line,
as PyTorch's structseq does.
"""

__all__ = ["max", "min", "sort", "topk"]


class _ValuesIndices(tuple):
    _fields = ("values", "indices")

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    def __getnewargs__(self):      # copy and pickle call __new__(cls, values, indices)
        return tuple(self)

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"{type(self).__module__}.{type(self).__qualname__}(\n{fields})"


class max(_ValuesIndices):
    """``torch.return_types.max``: what ``Tensor.max(dim)`` returns."""


class min(_ValuesIndices):
    """``torch.return_types.min``: what ``Tensor.min(dim)`` returns."""


class sort(_ValuesIndices):
    """``torch.return_types.sort``: what ``Tensor.sort()`` returns."""


class topk(_ValuesIndices):
    """``torch.return_types.topk``: what ``Tensor.topk(k)`` returns."""
