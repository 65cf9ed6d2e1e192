"""``python -m minigrad.trace SCRIPT.py [args] [--html OUT]``

Runs an unmodified PyTorch script with real torch, records every backward pass in
it (:func:`minigrad.trace.torch_events`), then prints each pass's events after
the script's own output, below a ``== minigrad.trace`` line. With ``--html OUT``
it also writes a self-contained page: per pass, the event list, the hook timeline
and the graph, pictures embedded as base64 PNG. Leaves are named after the
script's global variables (``AccumulateGrad(x)``) and modules' parameter names.
Values print as the tensors' own repr does (on one line).

The script runs as ``python SCRIPT.py`` runs it: its traceback, the message of
``sys.exit("...")``, and its exit status, which is this command's. ``OUT`` is checked
before the script runs (exit status 2 when it is missing, is the script or one of its
inputs, or cannot be written), and the page is written whole or not at all.
"""
import base64
import html
import io
import os
import sys

from minigrad.run import run_script as _run_script, script_problem as _script_problem
from minigrad.utils._cli import output_problem as _output_problem, write_atomically as _write_atomically

USAGE = "usage: python -m minigrad.trace SCRIPT.py [script args] [--html OUT.html]"
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
    if not rest or not rest[0].endswith(".py"):
        raise _UsageError("the first argument must be the script (SCRIPT.py)")
    problem = _script_problem(rest[0])
    if problem is not None:
        raise _UsageError(problem[0])
    if out is not None:
        inputs = [arg for arg in rest if os.path.isfile(arg)]     # the script and its input files
        problem = _output_problem(out, inputs)
        if problem is not None:
            raise _UsageError(f"--html {problem}")


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


def main(argv):
    try:
        out, rest = _split_args(argv)
        _check(out, rest)
    except _UsageError as exc:
        print(f"{USAGE}\nminigrad.trace: error: {exc}", file=sys.stderr)
        return 2
    script = rest[0]
    from minigrad.trace import torch_events
    namespace = {}
    with torch_events() as events:
        status = _run_script(script, rest[1:], namespace)
    from minigrad.viz import format_events
    labels = _labels(namespace)
    print(f"{HEADER}: {len(events.passes)} backward pass(es) in {os.path.basename(script)}")
    for number, record in enumerate(events.passes, start=1):
        print(f"-- pass {number}")
        for line in format_events([e for e in record.events if e is not None],
                                  labels=labels, show_args=True):
            print(line)
    if out:
        _write_atomically(out, _page(os.path.basename(script), events.passes, labels))
        print(f"{HEADER}: wrote {out}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
