"""``python -m minigrad.trace SCRIPT.py [args] [--html OUT]``

Runs an unmodified PyTorch script with real torch, records every backward pass in
it (:func:`minigrad.trace.torch_events`), then prints each pass's events after
the script's own output, below a ``== minigrad.trace`` line. With ``--html OUT``
it also writes a self-contained page: per pass, the event list, the hook timeline
and the graph, pictures embedded as base64 PNG. Leaves are named after the
script's global variables (``AccumulateGrad(x)``) and modules' parameter names.
Values print as the tensors' own repr does (on one line).

The script runs as ``python SCRIPT.py`` runs it (SCRIPT may also be a folder with a
``__main__.py``): its traceback, the message of ``sys.exit("...")``, and its exit
status, which is this command's.

``OUT`` never replaces a file the run reads. Before the script runs, ``OUT`` is
refused (exit status 2) when it is missing, cannot be written, or is the script, one of
its arguments or a module of the script's folder that it imports; after the run, when
the script opened or imported it after all (the page is then not written, exit status
2). The page is written whole or not at all.

Ctrl-C (or SIGTERM) stops the script: the passes it finished are printed and written
all the same, a line on stderr says the run was interrupted, and the exit status is
130 (143). A reader that goes away (``... | head -1``) ends the command quietly, with
exit status 1.
"""
import ast
import base64
import html
import io
import os
import sys

from minigrad.run import (_script_traceback, run_script as _run_script,
                          script_problem as _script_problem)
from minigrad.utils import _cli

USAGE = "usage: python -m minigrad.trace [-h] SCRIPT.py [script args] [--html OUT.html]"
HEADER = "== minigrad.trace"


class _UsageError(Exception):
    """A bad command line: exit status 2, before the script runs."""


def _split_args(argv):
    """``--html OUT`` (or ``--html=OUT``) is ours wherever it stands; everything else is
    the script's."""
    out, rest = None, []
    i = 0
    while i < len(argv):
        if argv[i].startswith("--html="):
            out = argv[i][len("--html="):]
        elif argv[i] == "--html":
            if i + 1 == len(argv):
                raise _UsageError("--html needs a file name: --html OUT.html")
            out = argv[i + 1]
            i += 1
        else:
            rest.append(argv[i])
        i += 1
    if out == "":
        raise _UsageError("--html needs a file name: --html OUT.html")
    return out, rest


def _check(out, rest):
    """The usage errors found before the script runs."""
    if not rest:
        raise _UsageError("no script given: the first argument is the script to run (SCRIPT.py)")
    if rest[0].startswith("-"):
        raise _UsageError(f"unknown option {rest[0]!r}: the first argument is the script to run "
                          "(SCRIPT.py); the only option is --html OUT.html")
    problem = _script_problem(rest[0])
    if problem is not None:
        raise _UsageError(f"{problem[0]} (the first argument is the script to run: a Python file, "
                          "or a folder with a __main__.py, as for python)")
    if out is not None:
        inputs = [arg for arg in rest if os.path.isfile(arg)]     # the script and its input files
        problem = _cli.output_problem(out, inputs)
        if problem is None and os.path.realpath(out) in _local_imports(rest[0]):
            problem = f"{out} is a module the script imports: choose another output path"
        if problem is not None:
            raise _UsageError(f"--html {problem}")


def _local_imports(script):
    """The files of the script's folder that its import statements name (``import
    helper`` -> helper.py or helper/__init__.py; ``from pkg import mod`` -> pkg/mod.py
    too), as real paths: the modules an --html path must not replace."""
    if not os.path.isfile(script):
        return set()
    try:
        with open(script, "rb") as f:
            tree = ast.parse(f.read())
    except (SyntaxError, ValueError, OSError):
        return set()          # the run will say what is wrong with it
    folder, names = os.path.dirname(os.path.abspath(script)), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    files = set()
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            stem = os.path.join(folder, *parts[:i])
            files.update(os.path.realpath(p) for p in (stem + ".py", os.path.join(stem, "__init__.py")))
    return files


class _OpenedFiles:
    """The files the script opens or imports while it runs (real paths), seen through the
    ``open`` audit event (``open()``, ``io.open_code`` for a module's source) and the
    modules it imported (one loaded from a cached .pyc opens no source)."""

    def __init__(self):
        self.paths, self.watching = set(), False
        sys.addaudithook(self._audit)        # (an audit hook stays for the process: see watching)

    def _audit(self, event, args):
        if self.watching and event == "open" and isinstance(args[0], (str, bytes)):
            self.paths.add(os.path.realpath(os.fsdecode(args[0])))

    def __enter__(self):
        self.watching = True
        return self

    def __exit__(self, *exc):
        self.watching = False
        for module in list(sys.modules.values()):
            source = getattr(module, "__file__", None)
            if isinstance(source, str):
                self.paths.add(os.path.realpath(source))


def _labels(namespace):
    """Names for leaves: the script's global tensors, then its modules' parameters."""
    import torch
    labels = {}
    for name, value in namespace.items():
        if isinstance(value, torch.nn.Module):
            for pname, param in value.named_parameters():
                labels.setdefault(param, f"{name}.{pname}")
    for name, value in namespace.items():
        if isinstance(value, torch.Tensor) and not name.startswith("_"):
            labels[value] = name
    return labels


def _png(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _page(script, passes, labels):
    import matplotlib.figure
    from minigrad.viz import draw_graph, format_events, hook_timeline
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
             f"<title>minigrad.trace: {html.escape(script)}</title></head><body>",
             f"<h1>Backward passes of {html.escape(script)}</h1>",
             f"<p>{len(passes)} pass(es) recorded from real PyTorch.</p>"]
    for number, record in enumerate(passes, start=1):
        events = [e for e in record.events if e is not None]
        timeline = matplotlib.figure.Figure(
            figsize=(max(5.0, 0.3 * len(events) + 3.5), max(2.0, 0.4 * len(events) / 3 + 1.5)))
        hook_timeline(events, ax=timeline.add_subplot(), labels=labels)
        graph = matplotlib.figure.Figure(figsize=(6, 5))
        ax = graph.add_subplot()
        draw_graph(*record.roots, ax=ax, labels=labels)
        listing = "\n".join(format_events(events, labels=labels, show_args=True))
        parts += [f"<h2>Pass {number}</h2>",
                  f"<pre>{html.escape(listing)}</pre>",
                  f"<img alt='hook timeline of pass {number}' "
                  f"src='data:image/png;base64,{_png(timeline)}'>",
                  f"<img alt='graph of pass {number}' "
                  f"src='data:image/png;base64,{_png(graph)}'>"]
    parts.append("</body></html>")
    return "\n".join(parts)


def _print_passes(script, passes, labels):
    from minigrad.viz import format_events
    print(f"{HEADER}: {len(passes)} backward pass(es) in {_cli.shown(os.path.basename(script))}")
    for number, record in enumerate(passes, start=1):
        print(f"-- pass {number}")
        for line in format_events([e for e in record.events if e is not None],
                                  labels=labels, show_args=True):
            print(line)


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        try:
            print(USAGE + "\n\n" + __doc__.split("\n", 2)[2].strip(), flush=True)
        except BrokenPipeError:
            return _cli.reader_gone()
        return 0
    try:
        out, rest = _split_args(argv)
        _check(out, rest)
    except _UsageError as exc:
        print(f"{USAGE}\nminigrad.trace: error: {exc}", file=sys.stderr)
        return 2
    script = rest[0]
    from minigrad.trace import torch_events
    namespace, stop = {}, None
    _cli.raise_on_sigterm()
    opened = _OpenedFiles()
    with torch_events() as events, opened:
        try:
            status = _run_script(script, rest[1:], namespace)
        except KeyboardInterrupt as interrupt:      # Ctrl-C, or SIGTERM (_cli.Terminated)
            stop = interrupt
    if stop is not None and not isinstance(stop, _cli.Terminated):
        tb = _script_traceback(stop.__traceback__, os.path.abspath(script))    # as python shows it
        sys.excepthook(type(stop), stop.with_traceback(tb), tb)
    labels = _labels(namespace)
    refused = out and os.path.realpath(out) in opened.paths
    if out and not refused:
        _cli.write_atomically(out, _page(_cli.shown(os.path.basename(script)), events.passes, labels))
    reader_gone = None
    try:
        _print_passes(script, events.passes, labels)
        if out and not refused:
            print(f"{HEADER}: wrote {_cli.shown(out)}")
        sys.stdout.flush()
    except BrokenPipeError:
        reader_gone = _cli.reader_gone()
    if refused:
        print(f"minigrad.trace: error: --html {_cli.shown(out)}: the script read it during the run, so "
              "it was not replaced and the page was not written: choose another output path",
              file=sys.stderr)
    if stop is not None:
        kept = f"; the page is {_cli.shown(out)}" if out and not refused else ""
        print(f"minigrad.trace: interrupted: the script did not finish; the {len(events.passes)} "
              f"pass(es) recorded until then are listed above{kept}", file=sys.stderr)
        return _cli.exit_status(stop)
    if refused:
        return 2
    return status if reader_gone is None else reader_gone


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
