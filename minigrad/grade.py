"""``python -m minigrad.grade``: grade a class's lesson notebooks. The tool lives with the
checks it runs, in :mod:`minigrad.exercises.grade`; this module only starts it."""
import sys

from minigrad.exercises.grade import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
