"""``torch.device``: where a tensor's data lives. minigrad has the CPU, and the meta
device, where tensors have a shape and a dtype but no data (``_meta.py``).

PyTorch counterpart: ``torch.device`` (``c10/core/Device.h``), and for the default
device ``torch.set_default_device``/``get_default_device`` and ``with torch.device(...):``
(``torch/utils/_device.py``). The names of PyTorch's other device types are accepted by
``device(...)`` so that scripts can *describe* them (``device("cuda")`` is a value, as in
PyTorch), but putting a tensor there raises an error that says minigrad is CPU-only.

The default device is where factories (``empty``, ``zeros``, ``tensor``, ``randn``, ...)
put a tensor when no ``device=`` is given: ``with torch.device("meta"):`` makes it the
meta device for a block, so the modules built inside have parameters with no memory.
Where minigrad differs: PyTorch implements the block as a ``TorchFunctionMode`` that adds
``device=`` to factory calls (so it shows on the function-mode stack); minigrad keeps the
default device as a stack that factories read, and ``torch.device`` objects nest.
"""

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:
    """``torch.device(type, index=None)`` or ``torch.device("type:index")``.

    Prints as ``device(type='cpu')``; ``str()`` gives ``"cpu"``. As in PyTorch, a device
    equals only another device with the same type and index: ``t.device == "cpu"`` is
    False (compare ``t.device.type == "cpu"``, or with ``minigrad.device("cpu")``)."""

    __module__ = "minigrad"         # prints as <class 'minigrad.device'>
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type.__class__.__name__}), but expected a device string or type")
        else:
            name, sep, number = type.partition(":")
            if name not in _DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at "
                                   f"start of device string: {type}")
            if sep:
                if not number.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type}'")
                if index is not None:
                    raise RuntimeError("type (string) must not include an index because index "
                                       f"was passed explicitly: {type}")
                index = int(number)
            type = name
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with torch.device("meta"):``: factories without ``device=`` use this device
        inside the block."""
        _default_devices.append(check_device(self))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _default_devices.pop()


CPU = device("cpu")
META = device("meta")
_default_devices = [CPU]        # the innermost is the default device


def set_default_device(device):
    """``torch.set_default_device(device)``: where factories put tensors from now on
    (``None`` means the CPU again)."""
    _default_devices[0] = CPU if device is None else check_device(device)


def get_default_device():
    """``torch.get_default_device()``: the device factories use when given none."""
    return _default_devices[-1]


def check_device(where):
    """The device a tensor may go to: ``None`` means the default device; a cpu or meta
    device (given as a ``device`` or a string) is itself; any other device is refused with
    a message saying minigrad is CPU-only (``cuda``: the AssertionError PyTorch raises when
    it was built without CUDA)."""
    if where is None:
        return _default_devices[-1]
    if where is CPU or where == "cpu":
        return CPU
    where = device(where)
    if where.type == "cpu":
        return CPU
    if where.type == "meta":
        return META
    message = (f"minigrad runs on the CPU only: it has no '{where.type}' device. Use "
               "device='cpu' (scripts often choose with "
               "`device = 'cuda' if torch.cuda.is_available() else 'cpu'`; "
               "minigrad.cuda.is_available() is False).")
    if where.type == "cuda":
        raise AssertionError(message)       # PyTorch: "Torch not compiled with CUDA enabled"
    raise RuntimeError(message)
