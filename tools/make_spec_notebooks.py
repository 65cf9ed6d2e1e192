#!/usr/bin/env python3
"""Generate the spec notebooks ``spec/cNN_<name>.ipynb`` from ``spec/scenarios/``.

Each scenario module (see ``spec/scenarios/__init__.py``) becomes one notebook:

1. markdown: the claim, PyTorch 2.13's verdict and why, and where the claim is made (the
   module's CLAIM, VERDICT, WHY, SOURCES);
2. code:     ``import minigrad as torch`` and the scenario import (works with the kernel
   started in spec/ or at the repository root);
3. markdown: the source of ``run`` as a code block (taken from the module now);
4. code:     run it with minigrad and print the trace;
5. markdown: where PyTorch's trace comes from;
6. code:     print PyTorch 2.13's recorded trace (``spec/torch_traces/``, written by
   tools/record_torch_traces.py) and whether minigrad's is identical;
7. markdown: the source of ``check`` as a code block;
8. code:     ``scenario.check`` on PyTorch's trace and on minigrad's, and the verdict.

The scenario code stays in the module (one copy, also run under real PyTorch by
tests/test_spec_crosscheck.py and tools/record_torch_traces.py); the notebook only shows it.

Idempotent: cell ids are fixed, and a cell whose source has not changed keeps its stored
outputs, execution count and metadata, so running this on executed notebooks changes
nothing unless a scenario changed. The README's claims table (between the
``<!-- claims:begin -->`` / ``<!-- claims:end -->`` markers) is regenerated too.

Usage:
    python tools/make_spec_notebooks.py             # write spec/c*.ipynb and the README table
    python tools/make_spec_notebooks.py --check     # exit 1 if anything is stale or missing
    python tools/make_spec_notebooks.py --out DIR   # write the notebooks to DIR instead
Then execute them (needs a working minigrad):
    jupyter nbconvert --to notebook --execute --inplace spec/c*.ipynb
"""
from __future__ import annotations

import argparse
import inspect
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec"
README = SPEC / "README.md"
BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def load_registry():
    """The ``spec/scenarios`` package (imported as ``scenarios``, as the notebooks do)."""
    sys.path.insert(0, str(SPEC))
    try:
        import scenarios
        return scenarios
    finally:
        sys.path.remove(str(SPEC))


def load_scenarios():
    return load_registry().all_scenarios()


def report(stale, orphans, check: bool, command: str) -> int:
    """Print what was written (or is stale) and what has no scenario; the exit status."""
    for p in stale:
        shown = p.relative_to(ROOT) if p.is_relative_to(ROOT) else p
        print(("stale: " if check else "wrote: ") + str(shown))
    for p in orphans:
        print(f"orphan (no scenario module): {p}")
    if check and (stale or orphans):
        print(f"run: {command}", file=sys.stderr)
        return 1
    return 0


def source_block(fn) -> str:
    return "```python\n" + textwrap.dedent(inspect.getsource(fn)).rstrip() + "\n```"


def link_label(url: str) -> str:
    """A short name for a source: ``owner/repo#123`` for a GitHub issue or pull request,
    else the site's host name."""
    parts = urlsplit(url)
    path = parts.path.strip("/").split("/")
    if parts.netloc == "github.com" and len(path) == 4 and path[2] in ("issues", "pull"):
        return f"{path[0]}/{path[1]}#{path[3]}"
    return parts.netloc


def sources_block(sources) -> str:
    return "\n".join(f"- {text} ([{link_label(url)}]({url}))" for text, url in sources)


IMPORT_CELL = """import minigrad as torch
try:                                # the kernel started in spec/ (JupyterLab, nbval)
    from scenarios import {name} as scenario, recorded_torch_trace
except ModuleNotFoundError:         # ... or at the repository root
    from spec.scenarios import {name} as scenario, recorded_torch_trace"""

COMPARE_CELL = """torch_trace = recorded_torch_trace("{name}")
print("\\n".join(torch_trace))
print()
print("identical to PyTorch 2.13:", trace == torch_trace)"""

VERDICT_CELL = """scenario.check(torch_trace)         # the verdict holds for PyTorch 2.13
scenario.check(trace)               # and for minigrad
print("verdict:", scenario.VERDICT)"""


def cells_for(name: str, mod) -> list[tuple[str, str]]:
    """[(cell_type, source)] for one scenario."""
    num = name.split("_", 1)[0]
    intro = (
        f"# {num}: {mod.CLAIM}\n\n"
        f"**Verdict under PyTorch 2.13: {mod.VERDICT}.**\n\n"
        f"{mod.WHY}\n\n"
        f"**Where the claim comes from:**\n\n{sources_block(mod.SOURCES)}\n\n"
        f"The scenario lives in `scenarios/{name}.py`. This notebook runs it with minigrad "
        f"and shows PyTorch 2.13's trace of the same code, recorded in "
        f"`torch_traces/{name}.json` by `tools/record_torch_traces.py`; "
        f"`tests/test_spec_crosscheck.py` records it again with real PyTorch and fails if "
        f"the recording is stale or minigrad's trace differs."
    )
    return [
        ("markdown", intro),
        ("code", IMPORT_CELL.format(name=name)),
        ("markdown", "The scenario (it uses only the `torch` module it is given):\n\n"
                     + source_block(mod.run)),
        ("code", 'trace = scenario.run(torch)      # minigrad\nprint("\\n".join(trace))'),
        ("markdown", f"PyTorch 2.13's trace of the same scenario (`torch_traces/{name}.json`), "
                     f"and whether minigrad's is the same, line for line:"),
        ("code", COMPARE_CELL.format(name=name)),
        ("markdown", "The verdict, as assertions on a trace (PyTorch's, then minigrad's):\n\n"
                     + source_block(mod.check)),
        ("code", VERDICT_CELL),
    ]


def build(name: str, mod, old) -> nbformat.NotebookNode:
    """The notebook for one scenario, reusing unchanged cells of ``old`` (or None)."""
    old_cells = {c.get("id"): c for c in old.cells} if old is not None else {}
    nb = nbformat.v4.new_notebook()
    if old is not None:
        nb.metadata = old.metadata
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.setdefault("language_info", {"name": "python"})
    for i, (kind, source) in enumerate(cells_for(name, mod)):
        cell_id = f"{name.replace('_', '-')}-{i}"
        prev = old_cells.get(cell_id)
        if prev is not None and prev.cell_type == kind and prev.source == source:
            nb.cells.append(prev)
            continue
        new = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
        new["id"] = cell_id
        nb.cells.append(new)
    nbformat.validate(nb)
    return nb


def readme_table(scens) -> str:
    rows = ["| # | claim | verdict (PyTorch 2.13) | notebook |", "|---|---|---|---|"]
    for name, mod in scens:
        num = name.split("_", 1)[0]
        claim = mod.CLAIM.replace("|", "\\|")
        rows.append(f"| {num} | {claim} | **{mod.VERDICT}** | [`{name}.ipynb`]({name}.ipynb) |")
    return "\n".join(rows)


def with_table(text: str, table: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + table + "\n" + text[end:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="report stale files, write nothing")
    ap.add_argument("--out", type=Path, default=SPEC, help="where to write the notebooks")
    args = ap.parse_args(argv)

    scens = load_scenarios()
    stale = []
    for name, mod in scens:
        path = args.out / f"{name}.ipynb"
        before = path.read_text(encoding="utf-8") if path.exists() else None
        old = nbformat.reads(before, as_version=4) if before is not None else None
        # Compare normalised content, so a file written by nbconvert (whose whitespace
        # may differ) is not rewritten when nothing changed.
        normalised_before = nbformat.writes(nbformat.reads(before, as_version=4)) if before else None
        text = nbformat.writes(build(name, mod, old)) + "\n"
        if normalised_before is not None and normalised_before + "\n" == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    known = {f"{name}.ipynb" for name, _ in scens}
    orphans = [p for p in sorted(args.out.glob("c[0-9]*.ipynb")) if p.name not in known]

    if README.exists():
        text = README.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            new = with_table(text, readme_table(scens))
            if new != text:
                stale.append(README)
                if not args.check:
                    README.write_text(new, encoding="utf-8")

    return report(stale, orphans, args.check, "python tools/make_spec_notebooks.py")


if __name__ == "__main__":
    sys.exit(main())
