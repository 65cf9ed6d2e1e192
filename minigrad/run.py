"""``python -m minigrad.run SCRIPT.py [ARGS...]``: run an unmodified PyTorch script on minigrad.

``import torch``, ``from torch import nn``, ``import torch.nn.functional as F``,
``from torch.autograd.graph import ...``, ``from torch.utils.checkpoint import checkpoint``
and every other ``torch`` import resolve to minigrad's modules; real PyTorch is never
imported. The script runs as ``python SCRIPT.py ARGS...`` would: as ``__main__``, with
``sys.argv == ["SCRIPT.py", *ARGS]``, its directory first on ``sys.path``, Python's
traceback on an uncaught exception and the same exit status.

A PyTorch API that minigrad does not have yet fails with an error naming it, e.g.::

    AttributeError: minigrad has no torch.foo yet (the script used torch.foo). See what
    real PyTorch does: python -m minigrad.diff SCRIPT.py; ask for it: <issues URL>

To compare the output with real PyTorch's: ``python -m minigrad.diff SCRIPT.py``.
"""
import sys

from ._torch_alias import (check_no_real_torch as _check_no_real_torch, install as _install,
                           run_script as _run_script)

__all__ = ["main"]

_USAGE = "usage: python -m minigrad.run [-h] SCRIPT.py [ARGS...]"


def main(argv=None):
    """Run ``argv[0]`` (a script path) with the arguments after it; return its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE + "\n\n" + __doc__.split("\n", 1)[1].strip(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0].startswith("-"):
        print(f"{_USAGE}\nminigrad.run: unknown option {argv[0]!r}", file=sys.stderr)
        return 2
    _install(script=argv[0])
    status = _run_script(argv[0], argv[1:])
    _check_no_real_torch()
    return status


if __name__ == "__main__":
    sys.exit(main())
