"""The smaller PyTorch APIs of issue 27: ``__version__``, ``sort``, ``index_add_``,
``abs(t)``, the logits BCE and L1 losses, ``SavedTensor.data`` and
``IndexBackward0._raw_saved_indices``; each compared with torch where it is installed
(the differential scenarios ``a0*`` compare whole traces)."""
import importlib.metadata
import tomllib
from pathlib import Path

import pytest

import minigrad
from minigrad.torch_version import TorchVersion

REPO_ROOT = Path(__file__).resolve().parents[1]


def both(fn):
    torch = pytest.importorskip("torch")
    return fn(minigrad), fn(torch)


# --- __version__ -----------------------------------------------------------------------------

def test_version_is_the_mirrored_pytorch_release_and_compares_as_a_version():
    v = minigrad.__version__
    assert isinstance(v, TorchVersion) and isinstance(v, str) and v == "2.13.0"
    assert v >= (1, 9) and v >= "1.9" and v == (2, 13) and v < "10.0" and not v < "2.13"
    assert TorchVersion("2.13.0") < "2.13.0+cpu" and TorchVersion("2.13.0rc1") < (2, 13)


def test_minigrads_own_release_is_the_package_metadata():
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        own = tomllib.load(f)["project"]["version"]
    assert importlib.metadata.version("minigrad") == own != minigrad.__version__


def test_torch_version_compares_as_minigrads():
    pytest.importorskip("torch")
    from torch.torch_version import TorchVersion as Theirs
    others = [(1, 9), "1.9", "2.13", (2, 13, 0), "2.13.0+cpu", "2.13.0a1", "2.13.0.dev1", "v2.13.0",
              "10.0", "parrot", "2.12.9", (3,)]
    for text in ["2.13.0", "2.0.0rc1", "1.10.0", "2.13.0+cpu"]:
        for other in others:
            for op in ("__lt__", "__le__", "__eq__", "__gt__", "__ge__", "__ne__"):
                mine = getattr(TorchVersion(text), op)(other)
                theirs = getattr(Theirs(text), op)(other)
                assert mine == theirs, (text, op, other)
