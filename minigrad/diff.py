"""``python -m minigrad.diff SCRIPT.py [ARGS...]``: run a PyTorch script under real PyTorch
and under minigrad, and show the first line where their outputs differ.

Each side runs in its own subprocess: ``python SCRIPT.py ARGS...`` (real PyTorch) and
``python -m minigrad.run SCRIPT.py ARGS...`` (minigrad), both with PYTHONHASHSEED=0,
one after the other. Both get the same stdin: it is read once, and a terminal gives
them none (end of file). While a side runs, stderr shows which one and for how long
(when stderr is a terminal).

Exit status:

- 0: "identical";
- 1: they differ; the first differing line is shown with a few lines of context from
  both sides;
- 2: bad usage: a bad option, a SCRIPT that ``python`` cannot open (checked before
  anything runs), or PyTorch is not installed (``pip install 'minigrad[torch]'``);
- 3: a side ran longer than ``--timeout`` and was stopped: which side, after how long.
  The time limit covers every process the script starts: a background process still
  holding the script's output open when it runs out is stopped too, and the report says
  so. A run that timed out is never "identical";
- 130 (Ctrl-C) or 143 (SIGTERM): interrupted; the side that was running is stopped with
  every process it started, and nothing is compared.

Each side runs in a process group of its own, stopped whole when the side ends: no
process the script started is left behind.

What is compared, in this order:

1. stdout, after two normalisations only: object addresses (``0x7f3a...``) become
   ``0xADDR``, and minigrad's module name becomes torch's (``minigrad.float32`` ->
   ``torch.float32``, ``<class 'minigrad.Tensor'>`` -> ``<class 'torch.Tensor'>``);
2. stderr (skip with ``--stdout-only``), after the same normalisations and three more
   that only a library's internals make different: traceback frames that are not in
   SCRIPT.py are dropped (so a traceback compares by the script's own frames and the
   final ``Error: message`` line), a warning raised outside SCRIPT.py shows
   ``<library>`` for its file and line, and PyTorch's "(Triggered internally at ...)"
   suffix is removed;
3. the exit status.

Mind that minigrad's random numbers differ from PyTorch's for the same seed: a script
that prints random values will differ.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import time

from .run import script_problem as _script_problem
from .utils import _cli

__all__ = ["main", "compare", "first_difference", "normalise", "normalise_stderr", "TIMED_OUT"]

TIMED_OUT = 3       # the exit status when a side ran past --timeout


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_MODULE_NAME = re.compile(r"\bminigrad\.")
_FRAME = re.compile(r'^(\s*)File "([^"]+)", line \d+')
_WARNING = re.compile(r"^(.+?):\d+: (\w*Warning): ")
_CPP_LOCATION = re.compile(r" \(Triggered internally at [^)]*\)")


def normalise(text):
    """Object addresses -> ``0xADDR``; ``minigrad.`` -> ``torch.`` (``minigrad.float32``,
    ``<class 'minigrad.Tensor'>``). The only normalisation of stdout."""
    return _MODULE_NAME.sub("torch.", _ADDRESS.sub("0xADDR", text))


def normalise_stderr(text, script):
    """:func:`normalise`, then what only a library's internals make different: traceback
    frames outside `script` are dropped (with their source lines), a warning raised
    outside `script` shows ``<library>`` for its file and line, and PyTorch's
    "(Triggered internally at <C++ file>)" suffix is removed."""
    script = os.path.abspath(script)
    out, skipping_indent = [], None
    for line in _CPP_LOCATION.sub("", text).splitlines():
        if skipping_indent is not None:
            if line.startswith(skipping_indent + " ") and line.strip():
                continue  # source / caret line of a dropped frame or warning
            if skipping_indent == "" and not line.strip():
                continue  # a library warning's message may hold blank lines (anomaly mode's)
            skipping_indent = None
        frame = _FRAME.match(line)
        if frame:
            if os.path.abspath(frame.group(2)) != script:
                skipping_indent = frame.group(1)
                continue
        else:
            warning = _WARNING.match(line)
            if warning and os.path.abspath(warning.group(1)) != script:
                line = f"<library>: {warning.group(2)}: {line[warning.end():]}"
                skipping_indent = ""
        out.append(line)
    return normalise("\n".join(out) + ("\n" if text.endswith("\n") else ""))


def _context(lines, index, n, marker):
    start = max(0, index - n)
    shown = []
    for i in range(start, min(len(lines), index + n + 1)):
        shown.append(f"{'>' if i == index else ' '} {i + 1:4d} | {lines[i]}")
    if index >= len(lines):
        shown.append(f"> {index + 1:4d} | <end of {marker}>")
    return "\n".join(shown)


def first_difference(torch_text, minigrad_text, what, context=3):
    """None if the texts are equal, else a report: the first differing line of `what`
    ("stdout", "stderr") with `context` lines around it from both sides."""
    if torch_text == minigrad_text:
        return None
    a, b = torch_text.splitlines(), minigrad_text.splitlines()
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    if i == len(a) == len(b):  # only the final newline differs
        return f"{what} differs only in its final newline"
    return (f"first difference: {what} line {i + 1}\n"
            f"--- torch\n{_context(a, i, context, what)}\n"
            f"--- minigrad\n{_context(b, i, context, what)}")


def compare(torch_run, minigrad_run, script, stderr=True, context=3):
    """Compare two runs, each a dict with ``stdout``, ``stderr`` and ``returncode``;
    return None when identical, else a report of the first difference: stdout first,
    then stderr (when `stderr`), then the exit status."""
    report = first_difference(normalise(torch_run["stdout"]), normalise(minigrad_run["stdout"]),
                              "stdout", context)
    if report is None and stderr:
        report = first_difference(normalise_stderr(torch_run["stderr"], script),
                                  normalise_stderr(minigrad_run["stderr"], script),
                                  "stderr", context)
    if report is None and torch_run["returncode"] != minigrad_run["returncode"]:
        report = (f"exit status {torch_run['returncode']} under torch, "
                  f"{minigrad_run['returncode']} under minigrad")
    if report is not None and torch_run["returncode"] != minigrad_run["returncode"]:
        tail = "\n".join(minigrad_run["stderr"].splitlines()[-6:])
        if tail and "stderr line" not in report:
            report += f"\n--- minigrad's stderr ends with\n{tail}"
    return report


# --- running the two sides -------------------------------------------------------------------

def _env():
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    # The minigrad side must import this very minigrad, whatever the current directory.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _show_progress(text):
    """``text`` on the terminal's last line (stderr), or nothing when stderr is not one."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K" + text)
        sys.stderr.flush()


def _run(side, cmd, env, timeout, stdin):
    """Run one side with ``stdin`` (bytes) as its input, in a process group of its own. A
    dict with ``stdout``, ``stderr``, ``returncode`` and ``timed_out`` (the seconds it
    ran before it was stopped, or None; ``returncode`` is then the script's own status
    if it had finished while a process it started held its output open). Whatever is
    left of the group when the side ends (or this function is interrupted) is killed."""
    start, script_status = time.monotonic(), None
    with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, start_new_session=True) as process:
        try:
            pending_input, timed_out = stdin, None
            while True:
                elapsed = time.monotonic() - start
                _show_progress(f"minigrad.diff: running under {side}... {elapsed:.0f} s")
                try:
                    out, err = process.communicate(pending_input,
                                                   timeout=min(1.0, max(0.0, timeout - elapsed)))
                    break
                except subprocess.TimeoutExpired:
                    pending_input = None            # already handed over
                    if time.monotonic() - start >= timeout:
                        timed_out = time.monotonic() - start
                        script_status = process.poll()
                        _cli.stop_process_group(process)
                        out, err = process.communicate()
                        break
        finally:
            _cli.stop_process_group(process)
            _show_progress("")
    finished = timed_out is None or script_status is not None
    return {"stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace"),
            "returncode": process.returncode if script_status is None else script_status,
            "timed_out": timed_out, "finished": finished}


def _timeout_report(runs, timeout):
    lines = []
    for side, run in runs.items():
        if run["timed_out"] is None:
            lines.append(f"under {side} it finished with exit status {run['returncode']}")
        elif run["finished"]:
            lines.append(f"timed out: under {side} the script finished (exit status {run['returncode']}), "
                         f"but a process it started was still running after {run['timed_out']:.1f} s "
                         f"(--timeout {timeout:g}) with the script's output open; it was stopped")
        else:
            lines.append(f"timed out: the script was still running under {side} after "
                         f"{run['timed_out']:.1f} s (--timeout {timeout:g}) and was stopped, with "
                         "every process it started")
    return "\n".join(lines)


def _lines(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of lines, not {text}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more lines, not {text}")
    return value


def main(argv=None):
    """Run the script under both frameworks, print the verdict, return 0/1/2/3."""
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.diff", description=__doc__,
        usage="%(prog)s [-h] [--stdout-only] [--context N] [--timeout S] SCRIPT.py [ARGS...]",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stdout-only", action="store_true",
                        help="compare stdout and the exit status, not stderr")
    parser.add_argument("--context", type=_lines, default=3, metavar="N",
                        help="lines of context shown around the first difference (default 3)")
    parser.add_argument("--timeout", type=_cli.seconds, default=300, metavar="S",
                        help="seconds allowed to each side (default 300); exit status "
                             f"{TIMED_OUT} when a side runs longer")
    parser.add_argument("script", nargs="?", metavar="SCRIPT.py", help="the PyTorch script")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="arguments passed to the script")
    opts = parser.parse_args(argv)
    if opts.script is None:
        parser.error("the following argument is required: SCRIPT.py (the PyTorch script to run "
                     "under both frameworks)")
    problem = _script_problem(opts.script)
    if problem is not None:
        print(f"minigrad.diff: {problem[0]}", file=sys.stderr)
        return 2
    if importlib.util.find_spec("torch") is None:
        print("minigrad.diff: PyTorch is not installed, so there is nothing to compare with.\n"
              "Install it with: pip install 'minigrad[torch]'   (or: pip install torch)\n"
              f"To run the script on minigrad alone: python -m minigrad.run {opts.script}",
              file=sys.stderr)
        return 2
    _cli.raise_on_sigterm()
    side = "torch"
    try:
        stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
        env = _env()
        runs = {"torch": _run("torch", [sys.executable, opts.script, *opts.args], env, opts.timeout, stdin)}
        side = "minigrad"
        runs["minigrad"] = _run("minigrad", [sys.executable, "-m", "minigrad.run", opts.script,
                                             *opts.args], env, opts.timeout, stdin)
    except KeyboardInterrupt as stop:       # Ctrl-C, or SIGTERM (_cli.Terminated)
        print(f"minigrad.diff: interrupted while the script ran under {side}: it was stopped, with "
              "every process it started; nothing was compared", file=sys.stderr)
        return _cli.exit_status(stop)
    if any(run["timed_out"] is not None for run in runs.values()):
        print(_timeout_report(runs, opts.timeout))
        return TIMED_OUT
    report = compare(runs["torch"], runs["minigrad"], opts.script, stderr=not opts.stdout_only,
                     context=opts.context)
    try:
        print("identical" if report is None else report, flush=True)
    except BrokenPipeError:
        return _cli.reader_gone()
    return 0 if report is None else 1


if __name__ == "__main__":
    sys.exit(main())
