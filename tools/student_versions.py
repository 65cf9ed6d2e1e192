#!/usr/bin/env python3
"""Write the student versions of the lessons.

Instructor notebooks are ``lessons/*.ipynb``. In their code cells, solutions sit between
two marker lines (the markers nbgrader uses)::

    def double(x):
        ### BEGIN SOLUTION
        return 2 * x
        ### END SOLUTION

For each instructor notebook this writes ``lessons/student/<same name>.ipynb`` where the
code inside each solution region becomes ``raise NotImplementedError("your code here")``
at the indentation of its BEGIN line; the marker lines stay, so the learner sees where
their answer goes and nbgrader's generate_assignment finds the region (it replaces a
solution cell *without* one by its own stub, losing the ``def`` line). Cells that changed
lose their outputs and their execution count; every other cell, and the notebook
metadata, are kept as they are.

The student versions also carry nbgrader's cell metadata, so a course directory made of
them works with ``nbgrader generate_assignment`` / ``autograde`` / ``generate_feedback``
(see docs/instructors.md):

* the notebook says which lesson it is (``metadata.minigrad.lesson``, copied from the
  instructor notebook); ``minigrad/exercises/registry.py`` lists that lesson's exercises;
* the cell that defines an exercise (its solution cell) becomes an nbgrader solution cell
  whose grade_id is the exercise's name;
* right after it comes a read-only autograder test cell worth the exercise's points. It
  calls ``minigrad.exercises.grading.autograde``, which does nothing when a learner runs
  it and raises, under nbgrader's autograde, unless the exercise passes its check;
* every other cell is an nbgrader read-only ("locked") cell.

A student version shows no answer in a stored output either. A code cell loses its outputs
and execution count when it is tagged ``reveal`` (the demo that runs a scenario the
learner was asked to predict: tag it in the instructor notebook) or when it uses a name an
exercise defines (its output came from the instructor's solution).

Every solution cell must define exactly one exercise of the registry and every exercise
of the registry must have its cell, else the tool reports the mismatch.

    python tools/student_versions.py           # (re)write lessons/student/*.ipynb and
                                               # lessons/zh/student/*.ipynb
    python tools/student_versions.py --check   # exit 1 listing stale/missing/orphan ones

By default it works on lessons/ and on the Chinese lessons, lessons/zh/ (each folder's
notebooks give its own student/ folder). Use --lessons DIR (repeatable) to work on other
lessons folders (the tests do).
"""
from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))        # this checkout's minigrad, whatever is installed

from minigrad.exercises.registry import lesson_exercises  # noqa: E402

BEGIN = re.compile(r"^(?P<indent>[ \t]*)#+\s*BEGIN SOLUTION\s*$")
END = re.compile(r"^[ \t]*#+\s*END SOLUTION\s*$")
STUB = 'raise NotImplementedError("your code here")'
REVEAL = "reveal"      # cell tag: the cell's output gives away a prediction's answer


class MarkerError(ValueError):
    pass


def _source_text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def strip_solutions(source: str) -> tuple[str, bool]:
    """Replace the code inside each BEGIN/END SOLUTION region of `source` by a stub,
    keeping the marker lines. Returns (new, changed)."""
    lines = source.splitlines(keepends=True)
    out, indent, changed = [], None, False
    for number, line in enumerate(lines, 1):
        body = line.rstrip("\r\n")
        begin, end = BEGIN.match(body), END.match(body)
        if indent is None:
            if begin:
                indent = begin.group("indent")
                changed = True
                out.append(line)
            elif end:
                raise MarkerError(f"line {number}: END SOLUTION without BEGIN SOLUTION")
            else:
                out.append(line)
        else:
            if begin:
                raise MarkerError(f"line {number}: nested BEGIN SOLUTION")
            if end:
                out.append(indent + STUB + "\n")
                out.append(line)
                indent = None
            # lines inside the region are dropped
    if indent is not None:
        raise MarkerError("BEGIN SOLUTION without END SOLUTION")
    return "".join(out), changed


def _as_lines(text: str) -> list[str]:
    # the way nbformat stores a cell's source on disk
    return text.splitlines(keepends=True)


def _nbgrader(grade_id: str, *, solution=False, grade=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution,
            "schema_version": 3, "solution": solution}
    if points is not None:
        meta["points"] = points
    return meta


def _parse(source: str) -> ast.Module:
    """A cell's syntax tree; an empty one for a cell that is not plain Python (magics)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _used_names(source: str) -> set[str]:
    """Names a cell reads (anywhere in it)."""
    return {node.id for node in ast.walk(_parse(source)) if isinstance(node, ast.Name)}


def _shows_an_answer(cell: dict, source: str, exercise_names: set[str]) -> bool:
    """Whether a cell's stored output gives away an answer (see the module docstring)."""
    return (REVEAL in cell.get("metadata", {}).get("tags", [])
            or bool(_used_names(source) & exercise_names))


def _clear_outputs(cell: dict) -> None:
    cell["outputs"] = []
    cell["execution_count"] = None


def _defined_names(source: str) -> set[str]:
    """Names a cell defines at top level (functions, classes, assignments)."""
    names = set()
    for node in _parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_cell_source(exercise) -> str:
    """The autograder test cell that follows ``exercise``'s solution cell."""
    points = f"{exercise.points} point{'s' if exercise.points != 1 else ''}"
    return (f"# Autograder test for {exercise.name} ({exercise.level}, {points}): running it yourself does\n"
            f"# nothing; under nbgrader's autograde it runs the check and fails unless it passes.\n"
            f"from minigrad.exercises.grading import autograde\n"
            f"autograde({exercise.lesson!r}, {exercise.name!r}, globals())")


def _test_cell(exercise) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": f"test-{exercise.name}"[:64],
            "metadata": {"nbgrader": _nbgrader(f"test_{exercise.name}", grade=True,
                                               points=exercise.points),
                         "tags": ["autograder"]},
            "outputs": [], "source": _as_lines(test_cell_source(exercise))}


def lesson_of(nb: dict):
    """The notebook's lesson ("02"), from ``metadata.minigrad.lesson``, or None."""
    lesson = (nb.get("metadata", {}).get("minigrad") or {}).get("lesson")
    return None if lesson is None else str(lesson)


def student_notebook(nb: dict, exercises=None) -> dict:
    """The student version of an instructor notebook (a parsed .ipynb dict).

    ``exercises`` (default: the registry's for the notebook's lesson) are matched to the
    solution cells by the names the cells define; see the module docstring."""
    if exercises is None:
        lesson = lesson_of(nb)
        exercises = lesson_exercises(lesson) if lesson is not None else ()
    student = copy.deepcopy(nb)
    exercise_names = {name for exercise in exercises for name in exercise.objects}
    cells, matched = [], {}
    for index, cell in enumerate(student.get("cells", [])):
        cell_id = cell.get("id") or f"index-{index}"
        cells.append(cell)
        changed = False
        if cell.get("cell_type") == "code":
            source = _source_text(cell.get("source", ""))
            try:
                new, changed = strip_solutions(source)
            except MarkerError as exc:
                raise MarkerError(f"cell {index}: {exc}") from None
        if not changed:
            if cell.get("cell_type") == "code" and _shows_an_answer(cell, source, exercise_names):
                _clear_outputs(cell)
            cell.setdefault("metadata", {})["nbgrader"] = _nbgrader(f"cell-{cell_id}")
            continue
        cell["source"] = _as_lines(new)
        _clear_outputs(cell)
        names = _defined_names(source)
        mine = [e for e in exercises if set(e.objects) & names]
        if exercises and len(mine) != 1:
            found = ", ".join(e.name for e in mine) or "none"
            raise MarkerError(f"cell {index}: a solution cell must define exactly one exercise of "
                              f"minigrad/exercises/registry.py (it defines: {found})")
        if not mine:
            cell.setdefault("metadata", {})["nbgrader"] = _nbgrader(f"cell-{cell_id}", solution=True)
            continue
        exercise = mine[0]
        if exercise.name in matched:
            raise MarkerError(f"cell {index}: exercise {exercise.name} already has its solution "
                              f"in cell {matched[exercise.name]}")
        matched[exercise.name] = index
        cell.setdefault("metadata", {})["nbgrader"] = _nbgrader(exercise.name, solution=True)
        cells.append(_test_cell(exercise))
    unmatched = [e.name for e in exercises if e.name not in matched]
    if unmatched:
        raise MarkerError(f"no solution cell defines {', '.join(unmatched)} (listed for this lesson "
                          "in minigrad/exercises/registry.py)")
    student["cells"] = cells
    return student


def dumps(nb: dict) -> str:
    # same layout as nbformat.write, so a save from Jupyter gives a small diff
    return json.dumps(nb, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False) + "\n"


def instructor_notebooks(lessons: Path) -> list[Path]:
    return sorted(p for p in lessons.glob("*.ipynb") if p.is_file())


def _lesson_problem(path: Path, nb: dict):
    """Why the notebook's lesson id is unusable (None if it is fine): a notebook with
    exercises needs ``metadata.minigrad.lesson``, and a ``NN_`` file name must agree."""
    lesson = lesson_of(nb)
    prefix = re.match(r"(\d+)_", path.name)
    has_solutions = any(BEGIN.match(line.rstrip("\r\n"))
                        for cell in nb.get("cells", []) if cell.get("cell_type") == "code"
                        for line in _source_text(cell.get("source", "")).splitlines())
    if lesson is None and (has_solutions or prefix):
        hint = prefix.group(1) if prefix else "NN"
        return (f'its notebook metadata has no "minigrad": {{"lesson": "{hint}"}} (graders '
                "recognise a lesson by it): add it (Edit > Notebook metadata in JupyterLab)")
    if lesson is not None and prefix and prefix.group(1) != lesson:
        return (f"its metadata says lesson {lesson!r} but its file name says {prefix.group(1)!r}")
    return None


def run(lessons: Path, check: bool) -> int:
    student_dir = lessons / "student"
    problems, written = [], []
    expected_names = set()
    for src in instructor_notebooks(lessons):
        expected_names.add(src.name)
        target = student_dir / src.name
        nb = json.loads(src.read_text(encoding="utf-8"))
        problem = _lesson_problem(src, nb)
        if problem:
            problems.append(f"{src}: {problem}")
            continue
        try:
            want = student_notebook(nb)
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
    parser.add_argument("--lessons", type=Path, action="append",
                        help="an instructor notebooks folder (repeatable; default: lessons/ "
                             "and lessons/zh/)")
    args = parser.parse_args(argv)
    folders = args.lessons or [ROOT / "lessons"] + [p for p in [ROOT / "lessons" / "zh"] if p.is_dir()]
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        parser.error(f"no such lessons folder: {', '.join(missing)}")
    return max(run(folder, args.check) for folder in folders)


if __name__ == "__main__":
    sys.exit(main())
