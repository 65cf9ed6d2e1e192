#!/usr/bin/env python3
"""Render the README's pictures with minigrad's own drawing tools.

    python tools/make_readme_figures.py      # writes docs/images/*.png
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import minigrad as torch  # noqa: E402
from minigrad.autograd.engine import record_events  # noqa: E402
from minigrad.viz import draw_graph, hook_timeline  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "images"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
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

    fig, ax = plt.subplots(figsize=(4.5, 4))
    draw_graph(loss, ax=ax, labels=labels, highlight=y.grad_fn)
    ax.set_title("loss = exp(x * w).sum()")
    fig.savefig(OUT / "graph.png", dpi=110, bbox_inches="tight")
    plt.close(fig)

    with record_events() as events:
        loss.backward()
    fig, ax = plt.subplots(figsize=(8, 3.2))
    hook_timeline(events, ax=ax, labels=labels)
    ax.set_title("one backward pass: which hook fired when, on which node")
    fig.savefig(OUT / "hook_timeline.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    print("wrote", *sorted(p.name for p in OUT.glob("*.png")))


if __name__ == "__main__":
    main()
