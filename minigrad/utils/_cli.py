"""What the command-line tools share: their arguments and output files (``minigrad.diff
--timeout``, ``minigrad.trace --html``, ``minigrad.grade --out/--feedback/--timeout``),
checked before any work starts; output written all at once; what they do when stopped.

A tool never writes over what it was given to read, and never loses finished work to a
bad output path: :func:`output_problem` says what is wrong with a path before the tool
runs, and :func:`write_atomically` writes a file whole or not at all (a temporary file in
the same folder, then renamed over the target), so a reader never sees half a file and
an interrupted write leaves the previous one.

Stopped by Ctrl-C (SIGINT) or ``kill`` (SIGTERM), a tool keeps what it finished, says it
was interrupted and exits with ``128 + signal`` (130, 143), as a shell reports a process
a signal ended; :func:`raise_on_sigterm` makes SIGTERM an exception, as Python makes
SIGINT one. Processes a tool starts get a process group of their own, which
:func:`stop_process_group` ends whole. A reader that goes away (``tool | head -1``) ends
the tool quietly with status 1 (:func:`reader_gone`).
"""
import argparse
import math
import os
import signal
import sys
import tempfile
from pathlib import Path

__all__ = ["seconds", "path", "output_problem", "write_atomically", "shown", "Terminated",
           "raise_on_sigterm", "exit_status", "stop_process_group", "reader_gone"]


def seconds(text):
    """An argparse type: a positive, finite number of seconds (``nan``, ``inf``, ``0`` and
    ``-1`` are refused with a message)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text!r}")
    if math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, not {text!r}")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def path(text):
    """An argparse type: a file or folder name as a ``Path``; an empty string is refused
    (``Path("")`` would be the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("must be a path, not an empty string")
    return Path(text)


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
    """Write ``text`` (a str, as UTF-8; or bytes) to ``path`` whole: into a temporary file
    in the same folder, then renamed over ``path``. Creates missing parent folders. A
    character UTF-8 cannot encode (a non-UTF-8 file name's surrogate) is written escaped,
    as Python shows it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(temporary, 0o666 & ~umask)       # mkstemp's file is private; a new file is not
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else
              os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="")) as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def shown(name):
    """A path as Python shows one it cannot encode (a file name that is not UTF-8, such as
    ``b"s\\xff.py"``, read as ``s\\udcff.py``): escaped, so printing it never fails."""
    return os.fspath(name).encode("utf-8", "backslashreplace").decode("utf-8")


class Terminated(KeyboardInterrupt):
    """SIGTERM as an exception (see :func:`raise_on_sigterm`); a KeyboardInterrupt, so
    that code which catches ``Exception`` lets it through, as it does Ctrl-C's."""
    signal = signal.SIGTERM


def _raise_terminated(signum, frame):
    raise Terminated()


def raise_on_sigterm():
    """From now on SIGTERM raises :class:`Terminated` in the main thread (Python's
    default ends the process at once, and with it what the tool finished)."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def exit_status(stop):
    """The exit status after ``stop`` (a KeyboardInterrupt: Ctrl-C's, or
    :class:`Terminated`): 128 + the signal's number, 130 or 143."""
    return 128 + getattr(stop, "signal", signal.SIGINT)


def stop_process_group(process):
    """Kill every process left in the process group that ``process`` (a ``Popen`` started
    with ``start_new_session=True``) leads, and wait for ``process`` itself."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass                # the group is gone already
    process.wait()


def reader_gone(status=1):
    """After a BrokenPipeError on stdout (its reader went away: ``tool | head -1``): stdout
    is pointed at /dev/null, so the flush at exit cannot fail again, and the tool ends
    with ``status``, no traceback (what Python's documentation advises for SIGPIPE)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return status
