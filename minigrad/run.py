"""``python -m minigrad.run SCRIPT.py [ARGS...]``: run an unmodified PyTorch script on minigrad.

``import torch``, ``from torch import nn``, ``import torch.nn.functional as F``,
``from torch.autograd.graph import ...``, ``from torch.utils.checkpoint import checkpoint``
and every other ``torch`` import resolve to minigrad's modules; real PyTorch is never
imported. The script runs as ``python SCRIPT.py ARGS...`` would: as ``__main__``, with
``sys.argv == ["SCRIPT.py", *ARGS]``, its directory first on ``sys.path``, Python's
traceback on an uncaught exception (the script's frames only) and the same exit status;
Ctrl-C shows the script's frames and ends the process by SIGINT, as ``python`` does.
A SCRIPT that cannot be opened (no such file, a folder without ``__main__.py``) fails as
``python`` fails: its message, exit status 2 (1 for the folder), nothing run.

A PyTorch API that minigrad does not have yet fails with an error naming it, e.g.::

    AttributeError: minigrad has no torch.foo yet (the script used torch.foo). See what
    real PyTorch does: python -m minigrad.diff SCRIPT.py; ask for it: <issues URL>

To compare the output with real PyTorch's: ``python -m minigrad.diff SCRIPT.py``.
"""
import builtins
import importlib.machinery
import io
import os
import runpy
import signal
import sys
import types
import zipfile

from . import _torch_alias

__all__ = ["main", "run_script", "script_problem"]

_USAGE = "usage: python -m minigrad.run [-h] SCRIPT.py [ARGS...]"


def script_problem(path):
    """``(reason, exit status)`` when ``python PATH`` would refuse ``path`` before running
    anything (no such file, unreadable, a folder without ``__main__.py``), else None.
    The reason is Python's own message, after ``python: ``."""
    shown = os.path.join(os.getcwd(), path)      # Python quotes the path joined to the cwd
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "__main__.py")):
            return None
        return f"can't find '__main__' module in {shown!r}", 1
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        return f"can't open file {shown!r}: [Errno {exc.errno}] {exc.strerror}", 2
    return None


def _script_traceback(tb, script):
    """The part of `tb` that ``python SCRIPT`` would show: from the script's first frame
    on (not runpy's and ours), without a last frame in the redirect (a missing-API error
    is raised there, but the script's line is where it comes from)."""
    start = tb
    while start is not None and os.path.abspath(start.tb_frame.f_code.co_filename) != script:
        start = start.tb_next
    if start is None:
        return tb
    last = start
    while last.tb_next is not None:
        if last.tb_next.tb_next is None and last.tb_next.tb_frame.f_code.co_filename == _torch_alias.__file__:
            last.tb_next = None
            break
        last = last.tb_next
    return start


def _exec_as_main(script, main):
    """Execute the file `script` (an absolute path) in the module `main`, with the
    globals ``python SCRIPT`` gives ``__main__`` (runpy.run_path would also rewrite
    sys.argv[0])."""
    with io.open_code(script) as f:
        code = compile(f.read(), script, "exec", dont_inherit=True)
    main.__file__ = script
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    main.__builtins__ = builtins
    main.__annotations__ = {}
    sys.modules["__main__"] = main  # pickle finds the script's classes here, as in Python
    exec(code, main.__dict__)


def run_script(path, args=(), namespace=None):
    """Run the Python file `path` as ``__main__`` with ``sys.argv = [path, *args]``, like
    ``python path args...``; return its exit status. ``namespace`` (a dict), if given,
    receives the script's global variables when it ends, however it ends.

    An uncaught exception goes to ``sys.excepthook`` with the traceback starting at the
    script's own frame (status 1); when it says minigrad lacks a PyTorch API, a note says
    which and how to compare with PyTorch. ``SystemExit`` gives its status and prints a
    message that is not a number, as in Python.
    """
    script = os.path.abspath(path)
    _torch_alias.name_script(path)
    sys.argv = [path, *args]
    sys.path[0] = os.path.dirname(script)
    saved_main = sys.modules.get("__main__")
    main = types.ModuleType("__main__")
    try:
        if os.path.isfile(script) and not zipfile.is_zipfile(script):
            _exec_as_main(script, main)
        else:  # a directory or zip file with a __main__.py, as `python DIR` runs it
            main.__dict__.update(runpy.run_path(script, run_name="__main__"))
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - reported like Python's top level does
        note = _torch_alias.missing_api_note(e)
        if note and hasattr(e, "add_note") and note not in getattr(e, "__notes__", ()):
            e.add_note(note)
        tb = _script_traceback(e.__traceback__, script)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 1
    finally:
        if namespace is not None:
            namespace.update(vars(main))
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return 0


def main(argv=None):
    """Run ``argv[0]`` (a script path) with the arguments after it; return its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE + "\n\n" + __doc__.split("\n", 1)[1].strip(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0].startswith("-"):
        print(f"{_USAGE}\nminigrad.run: unknown option {argv[0]!r}", file=sys.stderr)
        return 2
    problem = script_problem(argv[0])
    if problem is not None:
        print(f"{sys.executable}: {problem[0]}", file=sys.stderr)
        return problem[1]
    _torch_alias.install(script=argv[0])
    try:
        status = run_script(argv[0], argv[1:])
    except KeyboardInterrupt as stop:
        _die_of_sigint(stop, os.path.abspath(argv[0]))
    _torch_alias.check_no_real_torch()
    return status


def _die_of_sigint(stop, script):
    """What ``python SCRIPT`` does on Ctrl-C: the traceback from the script's own frames,
    then the process ends by SIGINT itself (a shell sees status 130, and a shell loop
    running it stops too)."""
    tb = _script_traceback(stop.__traceback__, script)
    sys.excepthook(type(stop), stop.with_traceback(tb), tb)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
