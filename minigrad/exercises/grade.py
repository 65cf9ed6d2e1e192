"""Grade a class's lesson notebooks in one command.

    python -m minigrad.grade SUBMISSION... [--out gradebook.csv] [--timeout SECONDS]
                                           [--feedback DIR] [--jobs N]

A SUBMISSION is a notebook or a folder; every ``*.ipynb`` below a folder counts
(``.ipynb_checkpoints`` excepted). Whose notebook it is comes from its path:

* ``.../submitted/<student>/<assignment>/<notebook>.ipynb`` (nbgrader's layout, also
  ``autograded/``): the student is the folder below ``submitted``;
* otherwise the student is the notebook's folder: ``submissions/alice/lesson.ipynb``.

Which lesson it is comes from the notebook's metadata (``metadata.minigrad.lesson``, set
in every lesson notebook and kept by Jupyter when a student renames or saves the file),
never from its file name.

Each notebook runs top to bottom in a fresh kernel of this Python (nbclient), errors and
all. While it runs, the learner's own ``check_...`` calls only print a note (see
``minigrad/exercises/__init__.py``). Then a cell appended by the grader imports the real
checks afresh and calls each on the learner's objects, found by name
(``minigrad/exercises/registry.py`` lists them), in the same kernel. What the notebook
printed, ✅ or not, is never read.

``--timeout`` (default 120 s) limits a notebook twice: its cells together may run that
long (the running cell is then interrupted and the rest are skipped), and its checks
together may run that long again, each getting an equal share of what is left. A kernel
that does not stop when interrupted is shut down. When the kernel dies (``os._exit``, a
crash, out of memory), the notebook runs again in a fresh kernel without the cell, or the
exercise's check, that killed it (a few times at most). Nothing a notebook does stops the
grading of the others.

Output: ``--out`` (default ``gradebook.csv``) has one row per student, lesson and
exercise: ``student,lesson,exercise,status,points,max_points,message``, the status being
one of ``passed``, ``failed``, ``not implemented``, ``error`` (the learner's code raised,
the cell defining it failed, or it killed the kernel), ``timeout`` or ``missing`` (not
defined in the notebook, or no notebook of that lesson from this student). Points are
the exercise level's (warm-up 1, core 2, stretch 3) when it passed, else 0. A student
without a notebook for a lesson that others handed in gets ``missing`` rows for it. The
terminal shows a progress line per notebook and then one line per student with the
totals. ``--feedback DIR`` writes ``DIR/<student>/<notebook>.md`` for each notebook.

Exit status: 0 when grading finished (whatever the grades), 2 on a usage error (no such
path, no notebooks).
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import json
import logging
import math
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass as _dataclass, field as _field
from pathlib import Path as _Path

from minigrad.exercises.grading import MARKER as _MARKER
from minigrad.exercises.registry import Exercise as _Exercise, lesson_exercises as _lesson_exercises

__all__ = ["COLUMNS", "STATUSES", "Row", "find_notebooks", "student_of", "grade", "main",
           "UsageError"]

COLUMNS = ["student", "lesson", "exercise", "status", "points", "max_points", "message"]
STATUSES = ("passed", "failed", "not implemented", "error", "timeout", "missing")
_NBGRADER_FOLDERS = ("submitted", "autograded")
_DEFAULT_TIMEOUT = 120.0


class UsageError(Exception):
    """Bad command line: exit status 2."""


@_dataclass
class Row:
    """One line of the gradebook."""
    student: str
    lesson: str
    exercise: str
    status: str
    points: int
    max_points: int
    message: str

    def as_dict(self):
        return {c: getattr(self, c) for c in COLUMNS}


@_dataclass
class _Submission:
    """One notebook handed in: whose, which lesson, and its graded rows."""
    path: _Path
    student: str
    lesson: str | None = None
    problem: str | None = None          # why it cannot be graded
    rows: list = _field(default_factory=list)
    seconds: float = 0.0

    @property
    def points(self):
        return sum(r.points for r in self.rows)


# --- finding notebooks -----------------------------------------------------------------
def find_notebooks(paths) -> list[_Path]:
    """Every notebook named by ``paths`` (files, or folders searched recursively)."""
    found, seen = [], set()
    for raw in paths:
        path = _Path(raw)
        if not path.exists():
            raise UsageError(f"no such file or folder: {raw}")
        if path.is_dir():
            notebooks = sorted(p for p in path.rglob("*.ipynb")
                               if p.is_file() and ".ipynb_checkpoints" not in p.parts)
        elif path.suffix == ".ipynb":
            notebooks = [path]
        else:
            raise UsageError(f"{raw} is neither a notebook (.ipynb) nor a folder")
        for nb in notebooks:
            key = nb.resolve()
            if key not in seen:
                seen.add(key)
                found.append(nb)
    if not found:
        raise UsageError("no notebooks (*.ipynb) found in " + ", ".join(map(str, paths)))
    return found


def student_of(path: _Path) -> str:
    """The student a notebook belongs to: the folder below ``submitted/`` in nbgrader's
    ``submitted/<student>/<assignment>/<notebook>`` layout, else the notebook's folder."""
    parts = _Path(path).resolve().parts
    if len(parts) >= 4 and parts[-4] in _NBGRADER_FOLDERS:
        return parts[-3]
    return parts[-2] if len(parts) >= 2 else "?"


def _read(path: _Path):
    import nbformat
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nbformat.read(str(path), as_version=4)


def _recognise(path: _Path) -> _Submission:
    sub = _Submission(path=path, student=student_of(path))
    try:
        nb = _read(path)
    except Exception as exc:
        sub.problem = f"not a readable notebook ({type(exc).__name__}: {exc})"
        return sub
    lesson = (nb.metadata.get("minigrad") or {}).get("lesson")
    if lesson is None:
        sub.problem = ("not a minigrad lesson: its metadata has no minigrad.lesson "
                       "(was it made from a notebook of lessons/student/?)")
    elif not _lesson_exercises(str(lesson)):
        sub.problem = f"lesson {lesson} has no exercises to grade"
    else:
        sub.lesson = str(lesson)
    return sub


# --- running one notebook --------------------------------------------------------------
_GRADING_CELL = """\
# appended by minigrad.grade: grade this notebook with the real checks, imported afresh
import sys as _mg_sys
for _mg_module in [m for m in _mg_sys.modules
                   if m == "minigrad.exercises" or m.startswith("minigrad.exercises.")]:
    del _mg_sys.modules[_mg_module]
from minigrad.exercises.grading import grade_lesson as _mg_grade_lesson
_mg_grade_lesson({lesson!r}, globals(), {nonce!r}, {budget!r}, only={names!r},
                 results_path={results_path!r})
"""


def _kernel_env():
    env = dict(os.environ)
    env.pop("NBGRADER_EXECUTION", None)
    env["MINIGRAD_GRADER"] = "1"             # the learner's own check calls are deferred
    env.setdefault("MPLBACKEND", "agg")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"                       # one core per kernel: kernels run side by side
    return env


def _kernel_manager():
    """A kernel manager for a python kernel of *this* interpreter (whatever kernel the
    notebook names), so the kernel imports the same minigrad as the grader."""
    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(resource_dir=ipykernel.kernelspec.RESOURCES,
                              **ipykernel.kernelspec.get_kernel_dict())

    return AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())


def _defines(source: str, name: str) -> bool:
    return re.search(rf"^\s*(?:async\s+def|def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*=",
                     source, re.M) is not None


def _first_error(cell):
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return f"{out.get('ename')}: {out.get('evalue')}"
    return None


@_dataclass
class _Attempt:
    """What one run of a notebook in one kernel gave."""
    found: dict = _field(default_factory=dict)         # exercise -> (status, message)
    cell_errors: dict = _field(default_factory=dict)   # cell index -> "Ename: value"
    stopped_at: int | None = None     # the cell running when the cells' time ran out
    died_at: object = None            # cell index, "start" or "grading": where the kernel died
    hung: str | None = None           # why nothing could be checked
    grading_done: bool = False


async def _attempt(nb, lesson: str, names, timeout: float, skip) -> _Attempt:
    """Run ``nb``'s code cells (but those in ``skip``) in a fresh kernel, then grade the
    exercises ``names`` with a cell appended for the purpose."""
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError
    import nbformat

    quiet = logging.getLogger("minigrad.grade.nbclient")
    quiet.setLevel(logging.CRITICAL)
    got = _Attempt()
    index = None
    with tempfile.TemporaryDirectory(prefix="minigrad-grade-") as cwd:
        km = _kernel_manager()
        client = NotebookClient(nb, km=km, allow_errors=True, interrupt_on_timeout=True,
                                record_timing=False, log=quiet, startup_timeout=120)
        try:
            await km.start_kernel(cwd=cwd, env=_kernel_env(),
                                  extra_arguments=["--HistoryManager.hist_file=:memory:"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            await client.async_start_new_kernel_client()

            async def run_cells():
                nonlocal index
                deadline = time.monotonic() + timeout
                for index, cell in enumerate(list(nb.cells)):
                    if cell.cell_type != "code" or not cell.source.strip() or index in skip:
                        continue
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        got.stopped_at = index
                        return
                    client.timeout = max(1, math.ceil(remaining))
                    await client.async_execute_cell(cell, index)
                    error = _first_error(cell)
                    if error:
                        got.cell_errors[index] = error
                    if time.monotonic() >= deadline:
                        got.stopped_at = index
                        return

            try:
                # a kernel that ignores the interrupt is given 30 s more, then stopped
                await asyncio.wait_for(run_cells(), timeout + 30)
            except asyncio.TimeoutError:
                where = "" if index is None else f" cell #{index + 1}"
                got.hung = (f"the notebook was still running{where} after {timeout:.0f} s and did "
                            "not stop when interrupted, so nothing could be checked.")
                return got

            index = "grading"
            nonce = secrets.token_hex(12)
            results_path = os.path.join(cwd, f"minigrad-grade-{nonce}.txt")
            cell = nbformat.v4.new_code_cell(_GRADING_CELL.format(
                lesson=lesson, nonce=nonce, budget=float(timeout), names=list(names),
                results_path=results_path))
            nb.cells.append(cell)
            client.timeout = math.ceil(timeout) + 30
            try:
                await asyncio.wait_for(client.async_execute_cell(cell, len(nb.cells) - 1),
                                       timeout + 60)
                got.grading_done = True
            except asyncio.TimeoutError:
                pass
            finally:
                nb.cells.pop()
                got.found = _results(_printed_lines(cell), nonce)
                got.found.update(_results(_file_lines(results_path), nonce))
            if got.grading_done and not got.found and _first_error(cell):
                got.hung = f"the grading cell failed: {_first_error(cell)}"
        except DeadKernelError:
            got.died_at = "start" if index is None else index
        finally:
            try:
                if client.kc is not None:
                    client.kc.stop_channels()
            finally:
                if km.has_kernel:
                    await km.shutdown_kernel(now=True)
    return got


def _printed_lines(cell):
    """The lines the grading cell printed to stdout."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            yield from out.get("text", "").splitlines()


def _file_lines(path):
    """The lines the grading cell appended to its results file (none if it never wrote)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError:
        return []


def _results(lines, nonce) -> dict:
    """The result lines among ``lines`` that carry this run's nonce."""
    prefix, found = f"{_MARKER} {nonce} ", {}
    for line in lines:
        if line.startswith(prefix):
            try:
                record = json.loads(line[len(prefix):])
                found[record["exercise"]] = (record["status"], record["message"])
            except (ValueError, KeyError):
                pass
    return found


_MAX_KERNEL_DEATHS = 3


async def _run_notebook(path: _Path, lesson: str, timeout: float):
    """Run one notebook and grade its exercises. Returns {exercise: (status, message)}.

    When the kernel dies (``os._exit``, a segfault, out of memory), the notebook runs
    again in a fresh kernel without the cell that killed it, or without the exercise
    whose check killed it (that exercise gets ``error``), a few times at most."""
    nb = _read(path)
    exercises = _lesson_exercises(lesson)
    results, skip = {}, set()
    pending = [e.name for e in exercises]
    last = _Attempt()
    for _ in range(_MAX_KERNEL_DEATHS + 1):
        if not pending:
            break
        last = await _attempt(nb, lesson, pending, timeout, skip)
        if last.hung:
            for name in pending:
                results[name] = ("timeout" if "did not stop" in last.hung else "error", last.hung)
            pending = []
            break
        results.update((n, r) for n, r in last.found.items() if n in pending)
        pending = [n for n in pending if n not in last.found]
        if last.died_at is None:
            for name in pending:
                results[name] = (("timeout", f"{name}: the checks did not finish in time and the "
                                             "kernel was stopped.") if not last.grading_done else
                                 ("error", f"{name}: the grader got no result for it."))
            pending = []
            break
        if last.died_at == "grading":
            culprit = pending.pop(0)        # checked in order: the first without a result
            results[culprit] = ("error", f"{culprit}: checking it killed the kernel (os._exit, a "
                                         "crash, or out of memory).")
        elif last.died_at != "start":       # before any cell ran: just try again
            skip.add(last.died_at)
    for name in pending:                    # out of attempts
        results[name] = ("error", "the kernel died (crashed, or ran out of memory) again and again, "
                                  "so this could not be checked.")

    for exercise in exercises:
        status, message = results[exercise.name]
        if status != "missing":
            continue
        defining = [i for i, c in enumerate(nb.cells)
                    if c.cell_type == "code" and any(_defines(c.source, n) for n in exercise.objects)]
        where = defining[-1] if defining else None
        if where is not None and where in skip:
            status, message = "error", (f"{exercise.name} is not defined: cell #{where + 1}, which "
                                        "defines it, killed the kernel (os._exit, a crash, or out of memory).")
        elif where is not None and where in last.cell_errors:
            status, message = "error", (f"{exercise.name} is not defined: cell #{where + 1}, which "
                                        f"defines it, raised {last.cell_errors[where]}")
        elif last.stopped_at is not None and (where is None or where >= last.stopped_at):
            status, message = "timeout", (f"{exercise.name} is not defined: the notebook's cells ran "
                                          f"out of time ({timeout:.0f} s) at cell #{last.stopped_at + 1}, "
                                          "and the rest were not run.")
        results[exercise.name] = (status, message)
    return results


async def _grade_submission(sub: _Submission, timeout: float):
    start = time.monotonic()
    try:
        results = await _run_notebook(sub.path, sub.lesson, timeout)
    except Exception as exc:            # never let one notebook stop the class's grading
        results = {e.name: ("error", f"the grader could not run this notebook: "
                                     f"{type(exc).__name__}: {exc}")
                   for e in _lesson_exercises(sub.lesson)}
    sub.seconds = time.monotonic() - start
    sub.rows = [_row(sub.student, e, *results[e.name]) for e in _lesson_exercises(sub.lesson)]
    return sub


def _row(student: str, exercise: _Exercise, status: str, message: str) -> Row:
    if status not in STATUSES:
        message = f"(status {status!r}) {message}"
        status = "error"
    points = exercise.points if status == "passed" else 0
    return Row(student, exercise.lesson, exercise.name, status, points, exercise.points, message)


# --- progress --------------------------------------------------------------------------
class _Progress:
    """A progress bar on stderr (one line per notebook when stderr is not a terminal)."""

    def __init__(self, total, stream=None):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._draw("")

    def _draw(self, last):
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        elapsed = time.monotonic() - self.start
        bar = f"grading [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} notebooks, {elapsed:.0f} s"
        if self.tty:
            self.stream.write("\r\033[K" + bar + (f"  {last}" if last else ""))
        elif last:
            self.stream.write(f"{bar}  {last}\n")
        self.stream.flush()

    def update(self, sub: _Submission):
        self.done += 1
        self._draw(f"{sub.student} lesson {sub.lesson}: {sub.points}/"
                   f"{sum(r.max_points for r in sub.rows)} ({sub.seconds:.0f} s)")

    def close(self):
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


# --- the class -------------------------------------------------------------------------
def grade(paths, timeout=_DEFAULT_TIMEOUT, jobs=None, progress=True, warn=None):
    """Grade the notebooks under ``paths``. Returns ``(rows, submissions)``: the
    gradebook rows (students in name order, lessons in order, exercises in notebook
    order) and every notebook found, graded or not (``problem`` says why not)."""
    warn = warn or (lambda text: print(f"minigrad.grade: {text}", file=sys.stderr))
    jobs = jobs or min(os.cpu_count() or 1, 8)
    subs = [_recognise(p) for p in find_notebooks(paths)]
    for sub in subs:
        if sub.problem:
            warn(f"skipped {sub.path}: {sub.problem}")
    todo = sorted((s for s in subs if s.lesson), key=lambda s: (s.student, s.lesson, str(s.path)))
    if not todo:
        raise UsageError(f"none of the {len(subs)} notebook(s) found is a minigrad lesson notebook")

    bar = _Progress(len(todo)) if progress else None

    async def run_all():
        gate = asyncio.Semaphore(jobs)

        async def one(sub):
            async with gate:
                await _grade_submission(sub, timeout)
            if bar:
                bar.update(sub)

        await asyncio.gather(*(one(s) for s in todo))

    if todo:
        asyncio.run(run_all())
    if bar:
        bar.close()

    # one notebook per student and lesson: the best, if several were handed in
    best: dict[tuple[str, str], _Submission] = {}
    for sub in todo:
        key = (sub.student, sub.lesson)
        if key in best:
            kept = max(best[key], sub, key=lambda s: s.points)
            other = sub if kept is best[key] else best[key]
            warn(f"{sub.student} handed in several notebooks of lesson {sub.lesson}: "
                 f"graded {kept.path} ({kept.points} points), not {other.path}")
            best[key] = kept
        else:
            best[key] = sub
    students = sorted({s.student for s in subs})
    lessons = sorted({s.lesson for s in todo})
    rows = []
    for student in students:
        for lesson in lessons:
            sub = best.get((student, lesson))
            if sub is not None:
                rows += sub.rows
            else:
                rows += [_row(student, e, "missing", f"no notebook of lesson {lesson} from {student}.")
                         for e in _lesson_exercises(lesson)]
    return rows, subs


def _write_gradebook(rows, path: _Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(r.as_dict() for r in rows)


def _summary(rows) -> str:
    """The terminal table: one line per student, points per lesson and the total."""
    lessons = sorted({r.lesson for r in rows})
    students = sorted({r.student for r in rows})
    def score(student, lesson=None):
        mine = [r for r in rows if r.student == student and (lesson is None or r.lesson == lesson)]
        return f"{sum(r.points for r in mine)}/{sum(r.max_points for r in mine)}"
    header = ["student"] + [f"lesson {l}" for l in lessons] + ["total"]
    table = [header] + [[s] + [score(s, l) for l in lessons] + [score(s)] for s in students]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(line, widths))) for line in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


_ICONS = {"passed": "✅", "failed": "❌", "not implemented": "⬜", "error": "💥",
          "timeout": "⏱️", "missing": "❓"}


def _write_feedback(subs, folder: _Path) -> list[_Path]:
    """One markdown file per graded notebook: ``folder/<student>/<notebook name>.md``."""
    written = []
    for sub in subs:
        if not sub.lesson:
            continue
        target = folder / sub.student / (sub.path.stem + ".md")
        target.parent.mkdir(parents=True, exist_ok=True)
        total = sum(r.max_points for r in sub.rows)
        lines = [f"# {sub.student}: lesson {sub.lesson} ({sub.path.name})", "",
                 f"**{sub.points} / {total} points**", "",
                 "| exercise | status | points | message |", "|---|---|---|---|"]
        for r in sub.rows:
            message = r.message.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{r.exercise}` | {_ICONS.get(r.status, '')} {r.status} | "
                         f"{r.points}/{r.max_points} | {message} |")
        lines += ["", "Points: warm-up 1, core 2, stretch 3, for an exercise that passes its check."]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written.append(target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.grade",
        description="Run students' lesson notebooks and grade their exercises with "
                    "minigrad's checks; writes a CSV gradebook.")
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION",
                        help="a notebook, or a folder searched for *.ipynb")
    parser.add_argument("--out", type=_Path, default=_Path("gradebook.csv"),
                        help="the gradebook CSV to write (default: gradebook.csv)")
    parser.add_argument("--timeout", type=float, default=_DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="time for one notebook's cells, and again for its checks "
                             f"(default: {_DEFAULT_TIMEOUT:.0f})")
    parser.add_argument("--feedback", type=_Path, metavar="DIR",
                        help="also write DIR/<student>/<notebook>.md for each notebook")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="notebooks run at the same time (default: the number of CPUs)")
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        rows, subs = grade(args.submissions, timeout=args.timeout, jobs=args.jobs)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    _write_gradebook(rows, args.out)
    if rows:
        print(_summary(rows))
    print(f"\ngradebook: {args.out} ({len(rows)} rows)")
    if args.feedback:
        written = _write_feedback(subs, args.feedback)
        print(f"feedback: {len(written)} file(s) in {args.feedback}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
