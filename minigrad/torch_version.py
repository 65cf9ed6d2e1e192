"""``torch.torch_version``: the version string that scripts compare (``TorchVersion``).

Code written for PyTorch gates features on ``torch.__version__`` (torchviz draws saved
tensors only when it is at least 1.9; libraries test ``torch.__version__ >= (2, 0)``).
So ``minigrad.__version__`` is the PyTorch version minigrad mirrors, ``"2.13.0"``, as a
:class:`TorchVersion`; minigrad's own release is the package's metadata
(``importlib.metadata.version("minigrad")``), where pip and other Python tools look.
"""
import re

__all__ = ["TorchVersion", "MIRRORED_TORCH_VERSION", "__version__"]

# The PyTorch release whose behaviour minigrad copies (the differential tests run it).
MIRRORED_TORCH_VERSION = "2.13.0"

# PEP 440's shape, as far as PyTorch versions use it: release numbers, then an optional
# pre-release (a, b, rc), an optional .devN and a +local label ("2.13.0+cpu" > "2.13.0").
_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc)(\d*))?(?:[-_.]?dev(\d*))?(?:\+([\w.]+))?",
                      re.IGNORECASE)
_PRE_RELEASE = {"a": 0, "b": 1, "rc": 2}
_FINAL = 3          # a final release sorts after its pre-releases


class _InvalidVersion(ValueError):
    pass


def _sort_key(text):
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        raise _InvalidVersion(text)
    release, pre, pre_number, dev, local = match.groups()
    numbers = [int(n) for n in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:     # 2.13 == 2.13.0
        numbers.pop()
    if pre:
        pre_key = (_PRE_RELEASE[pre.lower()], int(pre_number or 0))
    else:       # 2.13.0.dev1 < 2.13.0a0 < 2.13.0
        pre_key = (-1, 0) if dev is not None else (_FINAL, 0)
    dev_key = (0, int(dev or 0)) if dev is not None else (1, 0)
    local_key = (1, local.lower()) if local else (0, "")
    return tuple(numbers), pre_key, dev_key, local_key


def _as_version_text(other):
    """A string, a tuple such as ``(1, 9)`` or a ``packaging.version.Version``, as text."""
    if isinstance(other, str):
        return other
    if isinstance(other, (tuple, list)):
        return ".".join(str(item) for item in other)
    if hasattr(other, "release"):       # packaging.version.Version, without importing it
        return str(other)
    raise _InvalidVersion(repr(other))


class TorchVersion(str):
    """``torch.torch_version.TorchVersion``: a ``str`` that compares as a version with
    strings, tuples and ``packaging`` versions: ``TorchVersion("2.13.0") >= (1, 9)``,
    ``>= "1.9"``, ``== "2.13"``. As in PyTorch, only ``<``, ``<=``, ``==``, ``>``, ``>=``
    compare as versions (``!=`` is ``str``'s), and anything that is not a version (``"parrot"``)
    falls back to string comparison. PyTorch parses with ``packaging``; minigrad has a
    small parser of the same ordering (release numbers, then a, b, rc, dev, then a local
    label, compared as text)."""

    __slots__ = ()

    def _compare(self, other, method):
        try:
            mine, theirs = _sort_key(self), _sort_key(_as_version_text(other))
        except _InvalidVersion:
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)


for _method in ("__lt__", "__le__", "__eq__", "__gt__", "__ge__"):
    setattr(TorchVersion, _method, lambda self, other, _method=_method: self._compare(other, _method))
del _method

__version__ = TorchVersion(MIRRORED_TORCH_VERSION)
