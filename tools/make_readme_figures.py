#!/usr/bin/env python3
"""Render the README's pictures with minigrad's own drawing tools.

    python tools/make_readme_figures.py            # (re)writes docs/images/*.png that changed
    python tools/make_readme_figures.py --check    # exit 1 if one is stale (what it shows changed)

Each PNG carries, in its ``Description`` text chunk, what it shows: the graph's nodes,
the pass's events, the colours and markers of the legend, the titles and sizes. A
picture is rewritten only when that changed, so running the tool again, or on another
machine (another matplotlib or freetype draws other pixels from the same description),
leaves a committed picture as it is; ``--check`` compares descriptions, never pixels.
"""
import argparse
import io
import json
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402  (matplotlib's own dependency)

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))        # this checkout's minigrad, whatever is installed

import minigrad as torch  # noqa: E402
from minigrad.autograd.engine import record_events  # noqa: E402
from minigrad.utils._cli import write_atomically  # noqa: E402
from minigrad.viz import draw_graph, format_events, hook_timeline  # noqa: E402
from minigrad.viz._common import NODE_COLORS  # noqa: E402
from minigrad.viz.timeline import KIND_STYLE  # noqa: E402

OUT = ROOT / "docs" / "images"
DPI = 110


def _graph_nodes(root):
    seen, stack = [], [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node.name() not in seen:
            seen.append(node.name())
            stack.extend(n for n, _ in node.next_functions)
    return sorted(seen)


def figures():
    """``{file name: (figure, description)}``: the README's two pictures."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, 0.25], requires_grad=True)
    y = x * w
    y.retain_grad()
    loss = y.exp().sum()
    y.register_hook(lambda g: None)
    y.grad_fn.register_prehook(lambda go: None)
    y.grad_fn.register_hook(lambda gi, go: None)
    x.register_post_accumulate_grad_hook(lambda p: None)
    labels = {x: "x", w: "w"}

    graph, ax = plt.subplots(figsize=(4.5, 4))
    title = "loss = exp(x * w).sum()"
    draw_graph(loss, ax=ax, labels=labels, highlight=y.grad_fn)
    ax.set_title(title)
    graph_shows = {"title": title, "size": [4.5, 4], "nodes": _graph_nodes(loss),
                   "highlight": y.grad_fn.name(), "colors": NODE_COLORS}

    with record_events() as events:
        loss.backward()
    timeline, ax = plt.subplots(figsize=(8, 3.2))
    title = "one backward pass: which hook fired when, on which node"
    hook_timeline(events, ax=ax, labels=labels)
    ax.set_title(title)
    timeline_shows = {"title": title, "size": [8, 3.2], "events": format_events(events, labels=labels),
                      "styles": KIND_STYLE}
    return {"graph.png": (graph, graph_shows), "hook_timeline.png": (timeline, timeline_shows)}


def _description(shows):
    return json.dumps(shows, sort_keys=True)


def _png(figure, description):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight",
                   metadata={"Description": description, "Software": None})
    plt.close(figure)
    return buffer.getvalue()


def _committed(path):
    """The description in the PNG at ``path``, or None (no file, or none in it)."""
    try:
        with Image.open(path) as image:
            return image.info.get("Description")
    except (OSError, ValueError):
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a picture does not show what the code draws")
    parser.add_argument("--out", type=Path, default=OUT, help="the pictures' folder (default: docs/images)")
    args = parser.parse_args(argv)
    stale = []
    for name, (figure, shows) in figures().items():
        path, description = Path(os.path.relpath(args.out / name)), _description(shows)
        if _committed(path) == description:
            plt.close(figure)
            print(f"{path}: up to date")
            continue
        stale.append(path)
        if args.check:
            plt.close(figure)
            print(f"{path}: stale (what it shows changed): run  python tools/make_readme_figures.py")
            continue
        write_atomically(path, _png(figure, description))          # whole or not at all
        print(f"{path}: written")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
