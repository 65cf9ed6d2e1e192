#!/usr/bin/env python3
"""Write the student versions of the lessons.

Instructor notebooks are ``lessons/*.ipynb``. In their code cells, solutions sit between
two marker lines (the markers nbgrader uses)::

    def double(x):
        ### BEGIN SOLUTION
        return 2 * x
        ### END SOLUTION

For each instructor notebook this writes ``lessons/student/<same name>.ipynb`` where each
solution region (markers included) becomes ``raise NotImplementedError("your code here")``
at the indentation of its BEGIN line. Cells that changed lose their outputs and their
execution count; every other cell, and the notebook metadata, are kept as they are.

    python tools/student_versions.py           # (re)write lessons/student/*.ipynb
    python tools/student_versions.py --check   # exit 1 listing stale/missing/orphan ones

Use --lessons DIR to work on another lessons folder (the tests do).
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN = re.compile(r"^(?P<indent>[ \t]*)#+\s*BEGIN SOLUTION\s*$")
END = re.compile(r"^[ \t]*#+\s*END SOLUTION\s*$")
STUB = 'raise NotImplementedError("your code here")'


class MarkerError(ValueError):
    pass


def _source_text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def strip_solutions(source: str) -> tuple[str, bool]:
    """Replace each BEGIN/END SOLUTION region of `source` by a stub. Returns (new, changed)."""
    lines = source.splitlines(keepends=True)
    out, indent, changed = [], None, False
    for number, line in enumerate(lines, 1):
        body = line.rstrip("\r\n")
        begin, end = BEGIN.match(body), END.match(body)
        if indent is None:
            if begin:
                indent = begin.group("indent")
                changed = True
            elif end:
                raise MarkerError(f"line {number}: END SOLUTION without BEGIN SOLUTION")
            else:
                out.append(line)
        else:
            if begin:
                raise MarkerError(f"line {number}: nested BEGIN SOLUTION")
            if end:
                newline = line[len(body):] or ""
                out.append(indent + STUB + newline)
                indent = None
            # lines inside the region are dropped
    if indent is not None:
        raise MarkerError("BEGIN SOLUTION without END SOLUTION")
    return "".join(out), changed


def _as_lines(text: str) -> list[str]:
    # the way nbformat stores a cell's source on disk
    return text.splitlines(keepends=True)


def student_notebook(nb: dict) -> dict:
    """The student version of an instructor notebook (a parsed .ipynb dict)."""
    student = copy.deepcopy(nb)
    for index, cell in enumerate(student.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        try:
            new, changed = strip_solutions(_source_text(cell.get("source", "")))
        except MarkerError as exc:
            raise MarkerError(f"cell {index}: {exc}") from None
        if changed:
            cell["source"] = _as_lines(new)
            cell["outputs"] = []
            cell["execution_count"] = None
    return student


def dumps(nb: dict) -> str:
    # same layout as nbformat.write, so a save from Jupyter gives a small diff
    return json.dumps(nb, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False) + "\n"


def instructor_notebooks(lessons: Path) -> list[Path]:
    return sorted(p for p in lessons.glob("*.ipynb") if p.is_file())


def run(lessons: Path, check: bool) -> int:
    student_dir = lessons / "student"
    problems, written = [], []
    expected_names = set()
    for src in instructor_notebooks(lessons):
        expected_names.add(src.name)
        target = student_dir / src.name
        try:
            want = student_notebook(json.loads(src.read_text(encoding="utf-8")))
        except MarkerError as exc:
            problems.append(f"{src}: {exc}")
            continue
        if check:
            if not target.exists():
                problems.append(f"missing: {target} (from {src})")
            elif json.loads(target.read_text(encoding="utf-8")) != want:
                problems.append(f"stale: {target} (differs from what {src} gives)")
        else:
            text = dumps(want)
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                student_dir.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                written.append(target)
    if student_dir.is_dir():
        for orphan in sorted(student_dir.glob("*.ipynb")):
            if orphan.name not in expected_names:
                problems.append(f"orphan: {orphan} (no {lessons / orphan.name}; delete it)")

    for path in written:
        print(f"wrote {path}")
    for problem in problems:
        print(problem)
    if problems:
        if check:
            print("student versions are out of date: run  python tools/student_versions.py")
        return 1
    if check:
        print(f"student versions up to date ({len(expected_names)} notebook(s))")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="don't write; exit 1 if any student notebook is stale or missing")
    parser.add_argument("--lessons", type=Path, default=ROOT / "lessons",
                        help="instructor notebooks folder (default: lessons/)")
    args = parser.parse_args(argv)
    return run(args.lessons, args.check)


if __name__ == "__main__":
    sys.exit(main())
