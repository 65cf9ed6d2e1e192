"""a01: code that gates features on torch.__version__.

Intent: libraries compare torch.__version__ with strings and tuples (torchviz draws saved
tensors only from 1.9 on); the comparisons must answer as for the PyTorch release minigrad
mirrors. __version__ is a str (a TorchVersion) that compares as a version: "2.13" equals
"2.13.0", "10.0" is later than "2.13" (a plain string comparison says otherwise), a
pre-release or dev release comes before its release, a local label ("+cpu") after it, and
a string that is no version falls back to string comparison. The full string is not
printed, nor compared for equality: PyTorch's carries its build's local label ("+cpu").
"""
import torch
from torch.torch_version import TorchVersion

v = torch.__version__
print("is str", isinstance(v, str), "is TorchVersion", isinstance(v, TorchVersion))
print("release", v.split("+")[0].split(".")[:2])
for other in [(1, 9), "1.9", (2, 0), "2.12.1", "2.13.1", (3,), "10.0", "2.14.0.dev1"]:
    print(repr(other), "<", v < other, "<=", v <= other, "==", v == other, ">", v > other, ">=", v >= other)
print("not a version:", v < "parrot", v > "parrot")
if v >= (1, 9):
    print("feature gate for >= 1.9: on")

w = TorchVersion("2.13.0")
for other in ["2.13", (2, 13), (2, 13, 0), "2.13.0+cpu", "2.13.0rc2", "2.13.0.dev20250101", "v2.13.0"]:
    print("2.13.0 vs", repr(other), "<", w < other, "==", w == other, ">", w > other, "!=", w != other)
print("as a key:", {w: "found"}["2.13.0"])
print("1.10.0 > '1.9':", TorchVersion("1.10.0") > "1.9", "as str:", str.__gt__("1.10.0", "1.9"))
print("dev < a < b < rc:", TorchVersion("3.0.dev1") < "3.0a1",
      TorchVersion("3.0a1") < "3.0b1" < TorchVersion("3.0rc1"))
try:
    w < 3
except TypeError as e:
    print("TypeError:", e)
