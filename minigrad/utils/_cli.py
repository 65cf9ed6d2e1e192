"""What the command-line tools share: their arguments and output files (``minigrad.diff
--timeout``, ``minigrad.trace --html``, ``minigrad.grade --out/--feedback/--timeout``),
checked before any work starts; output written all at once.

A tool never writes over what it was given to read, and never loses finished work to a
bad output path: :func:`output_problem` says what is wrong with a path before the tool
runs, and :func:`write_atomically` writes a file whole or not at all (a temporary file in
the same folder, then renamed over the target), so a reader never sees half a file and
an interrupted write leaves the previous one.
"""
import argparse
import math
import os
import tempfile
from pathlib import Path

__all__ = ["seconds", "output_problem", "write_atomically"]


def seconds(text):
    """An argparse type: a positive, finite number of seconds (``nan``, ``inf``, ``0`` and
    ``-1`` are refused with a message)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def _inside(path, folder):
    return path == folder or folder in path.parents


def output_problem(path, inputs=(), folder=False):
    """Why ``path`` cannot be an output (a file, or a folder with ``folder=True``) of a
    tool that reads ``inputs`` (files and folders), or None. Refused: an input itself, a
    path inside an input folder, a folder where a file is wanted and a file where a folder
    is wanted, a path below a file, and a place the tool may not write."""
    target = Path(path).resolve()
    for given in inputs:
        source = Path(given).resolve()
        if target == source:
            return f"{path} is {given}, one of the inputs: choose another output path"
        if source.is_dir() and _inside(target, source):
            return f"{path} is inside {given}, an input folder: choose a path outside it"
    if target.exists() and target.is_dir() != folder:
        return f"{path} is a {'file' if folder else 'folder'}, not a {'folder' if folder else 'file'}"
    existing = target.parent if not target.exists() else (target if folder else target.parent)
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        return f"{path} cannot be created: {existing} is a file, not a folder"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return f"{path} cannot be written: {existing}: {exc.strerror or exc}"
    return None


def write_atomically(path, text):
    """Write ``text`` (UTF-8) to ``path`` whole: into a temporary file in the same folder,
    then renamed over ``path``. Creates missing parent folders."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(temporary, 0o666 & ~umask)       # mkstemp's file is private; a new file is not
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
