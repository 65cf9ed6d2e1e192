"""Grade a class's lesson notebooks in one command.

    python -m minigrad.grade SUBMISSION... [--out gradebook.csv] [--timeout SECONDS]
                                           [--feedback DIR] [--jobs N]

A SUBMISSION is a notebook or a folder; every ``*.ipynb`` below a folder counts
(``.ipynb_checkpoints`` excepted). Whose notebook it is comes from its path (see
:func:`student_of`):

* the student is the first folder below the SUBMISSION folder, however deep the notebook
  lies: ``submissions/alice/week2/lesson.ipynb`` is alice's;
* in nbgrader's layout, ``course/submitted/<student>/<assignment>/<notebook>.ipynb``
  (also ``autograded/``), that is the folder below ``submitted``. Given the course folder
  itself (one that holds ``submitted/`` or ``autograded/``), only ``submitted/`` is
  graded (``autograded/`` when there is no ``submitted/``): ``source/`` and ``release/``
  hold the instructor's notebooks, and ``autograded/`` nbgrader's copies of the same
  submissions;
* a notebook given by itself, or lying in the SUBMISSION folder directly, is named after
  its file: ``p.ipynb`` is p's.

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
defined in the notebook, or no notebook of that lesson from this student: the message then
names the student's notebooks that were skipped, e.g. one that is not valid JSON). Points
are the exercise level's (warm-up 1, core 2, stretch 3) when it passed, else 0. A student
without a notebook for a lesson that others handed in gets ``missing`` rows for it. The
CSV is rewritten (whole: a temporary file renamed over it) each time a notebook is graded,
so an interrupted run keeps every finished row. The terminal shows a progress line per
notebook and then one line per student with the totals. ``--feedback DIR`` writes
``DIR/<student>/<notebook>.md`` for each notebook in the gradebook (the same points).

``--out`` and ``--feedback`` are checked before anything is graded: neither may be a
SUBMISSION or lie inside a SUBMISSION folder, they may not be the same place, and both
must be writable. Nothing a SUBMISSION holds is ever written to.

Exit status: 0 when grading finished (whatever the grades); 2 on a usage error (no such
path, no notebooks, a bad ``--out``, ``--feedback`` or ``--timeout``); 130 after Ctrl-C
and 143 after SIGTERM: the running kernels are shut down, their temporary folders removed,
and the gradebook (and feedback) holds the notebooks graded so far.
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import logging
import math
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass as _dataclass, field as _field
from pathlib import Path as _Path

from minigrad.exercises.grading import MARKER as _MARKER
from minigrad.exercises.registry import Exercise as _Exercise, lesson_exercises as _lesson_exercises
from minigrad.utils._cli import (output_problem as _output_problem, path as _path_argument,
                                 reader_gone as _reader_gone, seconds as _seconds, shown as _shown,
                                 write_atomically as _write_atomically)

__all__ = ["COLUMNS", "STATUSES", "Row", "find_notebooks", "student_of", "grade", "main",
           "UsageError", "Interrupted"]

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
def _nbgrader_submissions(course: _Path):
    """The folder of an nbgrader course (``course`` holds ``submitted/`` or
    ``autograded/``) whose notebooks are the students': ``submitted/``, else
    ``autograded/``; None for a folder that is no nbgrader course."""
    for name in _NBGRADER_FOLDERS:
        if (course / name).is_dir():
            return course / name
    return None


def find_notebooks(paths, warn=None) -> list[tuple[_Path, str]]:
    """Every notebook named by ``paths`` (files, or folders searched recursively), each
    with its student (:func:`student_of`). Of an nbgrader course folder, only its
    submissions are searched (``warn`` says so)."""
    found, seen = [], set()
    for raw in paths:
        path = _Path(raw)
        if not path.exists():
            raise UsageError(f"no such file or folder: {raw}")
        if path.is_dir():
            searched = _nbgrader_submissions(path) or path
            if searched != path and warn:
                warn(f"{raw} is an nbgrader course: grading the notebooks in {searched} (one student "
                     "per folder below it), not those in its other folders")
            notebooks = sorted(p for p in searched.rglob("*.ipynb")
                               if p.is_file() and ".ipynb_checkpoints" not in p.parts)
        elif path.suffix == ".ipynb":
            notebooks = [path]
        else:
            raise UsageError(f"{raw} is neither a notebook (.ipynb) nor a folder")
        for nb in notebooks:
            key = nb.resolve()
            if key not in seen:
                seen.add(key)
                found.append((nb, student_of(nb, path)))
    if not found:
        raise UsageError("no notebooks (*.ipynb) found in " + ", ".join(map(str, paths)))
    return found


def student_of(notebook: _Path, given: _Path) -> str:
    """Whose ``notebook`` is, found under ``given`` (a path of the command line): the first
    folder below ``given``, however deep the notebook lies (``given/alice/week2/02.ipynb``
    is alice's), past nbgrader's ``submitted/`` (or ``autograded/``) when ``given`` is a
    course folder. A notebook given by itself, or lying in ``given`` directly, is named
    after its file (``p.ipynb`` is p's). A name that is not UTF-8 is escaped as Python
    shows it (``s\\udcff``), so the gradebook and the terminal can show it."""
    notebook, given = _Path(notebook), _Path(given)
    folders = notebook.relative_to(given).parts[:-1] if notebook != given else ()
    if len(folders) > 1 and folders[0] in _NBGRADER_FOLDERS:
        folders = folders[1:]
    return _shown(folders[0] if folders else notebook.stem)


def _read(path: _Path):
    """The notebook at ``path``; ValueError saying why when it is not one."""
    import nbformat
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return nbformat.reads(text, as_version=4)
        except Exception as exc:
            raise ValueError(f"not a readable notebook ({type(exc).__name__}: {exc})") from None


def _recognise(path: _Path, student: str) -> _Submission:
    sub = _Submission(path=path, student=student)
    try:
        nb = _read(path)
    except (OSError, ValueError) as exc:
        sub.problem = str(exc)
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
    current_cell: int | None = None   # the last cell started
    stopped_at: int | None = None     # the cell running when the cells' time ran out
    checking: bool = False            # the cells are done: the grading cell started
    died: bool = False                # the kernel died (os._exit, a crash, out of memory)
    hung: str | None = None           # why nothing could be checked
    grading_done: bool = False

    @property
    def killing_cell(self):
        """The notebook's cell that killed the kernel, or None."""
        return self.current_cell if self.died and not self.checking else None

    @property
    def died_at_start(self):
        """The kernel died before any cell ran: nobody's fault, try again."""
        return self.died and self.current_cell is None and not self.checking


async def _start_kernel(km, client, cwd):
    """A fresh kernel in the folder ``cwd``, and ``client`` connected to it."""
    await km.start_kernel(cwd=cwd, env=_kernel_env(),
                          extra_arguments=["--HistoryManager.hist_file=:memory:"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    await client.async_start_new_kernel_client()


async def _run_cells(client, nb, timeout: float, skip, got: _Attempt):
    """Step 1: the notebook's code cells (but those in ``skip``), errors and all, in
    ``timeout`` seconds together; the running cell is interrupted when they run out."""
    deadline = time.monotonic() + timeout
    for index, cell in enumerate(list(nb.cells)):
        if cell.cell_type != "code" or not cell.source.strip() or index in skip:
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            got.stopped_at = index
            return
        got.current_cell = index
        client.timeout = max(1, math.ceil(remaining))
        await client.async_execute_cell(cell, index)
        error = _first_error(cell)
        if error:
            got.cell_errors[index] = error
        if time.monotonic() >= deadline:
            got.stopped_at = index
            return


async def _run_checks(client, nb, lesson: str, names, timeout: float, cwd, got: _Attempt):
    """Step 2: a cell appended to the notebook imports the real checks afresh and grades
    the exercises ``names`` on the learner's objects; it writes each result to a file
    (and prints it), marked with a nonce the learner's code cannot know."""
    import nbformat
    got.checking = True
    nonce = secrets.token_hex(12)
    results_path = os.path.join(cwd, f"minigrad-grade-{nonce}.txt")
    cell = nbformat.v4.new_code_cell(_GRADING_CELL.format(
        lesson=lesson, nonce=nonce, budget=float(timeout), names=list(names),
        results_path=results_path))
    nb.cells.append(cell)
    client.timeout = math.ceil(timeout) + 30
    try:
        await _wait_for(client.async_execute_cell(cell, len(nb.cells) - 1), timeout + 60)
        got.grading_done = True
    except asyncio.TimeoutError:
        pass
    finally:
        nb.cells.pop()
        got.found = _results(_printed_lines(cell), nonce)
        got.found.update(_results(_file_lines(results_path), nonce))
    if got.grading_done and not got.found and _first_error(cell):
        got.hung = f"the grading cell failed: {_first_error(cell)}"


async def _wait_for(coro, seconds):
    """``asyncio.wait_for(coro, seconds)``, and what the task running ``coro`` ends with is
    always retrieved: cancelled (Ctrl-C), nbclient turns the cancellation into a
    DeadKernelError that asyncio would print as "Task exception was never retrieved"."""
    task = asyncio.ensure_future(coro)
    try:
        return await asyncio.wait_for(task, seconds)
    finally:
        if task.done() and not task.cancelled():
            task.exception()


async def _stop_kernel(km, client):
    """Shut the kernel down (its connection file goes with it), whatever happened."""
    try:
        if client.kc is not None:
            client.kc.stop_channels()
    finally:
        if km.has_kernel:
            await km.shutdown_kernel(now=True)


async def _attempt(nb, lesson: str, names, timeout: float, skip) -> _Attempt:
    """Run ``nb``'s code cells (but those in ``skip``) in a fresh kernel, in a temporary
    folder, then grade the exercises ``names`` with a cell appended for the purpose."""
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    quiet = logging.getLogger("minigrad.grade.nbclient")
    quiet.setLevel(logging.CRITICAL)
    got = _Attempt()
    with tempfile.TemporaryDirectory(prefix="minigrad-grade-") as cwd:
        km = _kernel_manager()
        client = NotebookClient(nb, km=km, allow_errors=True, interrupt_on_timeout=True,
                                record_timing=False, log=quiet, startup_timeout=120)
        try:
            await _start_kernel(km, client, cwd)
            try:
                # a kernel that ignores the interrupt is given 30 s more, then stopped
                await _wait_for(_run_cells(client, nb, timeout, skip, got), timeout + 30)
            except asyncio.TimeoutError:
                where = "" if got.current_cell is None else f" cell #{got.current_cell + 1}"
                got.hung = (f"the notebook was still running{where} after {timeout:.0f} s and did "
                            "not stop when interrupted, so nothing could be checked.")
                return got
            await _run_checks(client, nb, lesson, names, timeout, cwd, got)
        except DeadKernelError:
            got.died = True
        finally:
            await _stop_kernel(km, client)
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
        if not last.died:
            for name in pending:
                results[name] = (("timeout", f"{name}: the checks did not finish in time and the "
                                             "kernel was stopped.") if not last.grading_done else
                                 ("error", f"{name}: the grader got no result for it."))
            pending = []
            break
        if last.checking:
            culprit = pending.pop(0)        # checked in order: the first without a result
            results[culprit] = ("error", f"{culprit}: checking it killed the kernel (os._exit, a "
                                         "crash, or out of memory).")
        elif not last.died_at_start:        # before any cell ran: just try again
            skip.add(last.killing_cell)
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
                                        "defines it, killed the kernel (os._exit, a crash, or out of "
                                        "memory).")
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
        bar = (f"grading [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} notebooks, "
               f"{elapsed:.0f} s")
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
class Interrupted(Exception):
    """Grading was stopped by a signal (Ctrl-C, SIGTERM) after the kernels were shut down:
    ``signal`` (its number), ``graded`` (the submissions kept, one per student and
    lesson), ``done`` (the notebooks that finished, as the progress bar counts them) and
    ``total``."""

    def __init__(self, signum, graded, done, total):
        super().__init__(f"interrupted by {signal.Signals(signum).name}: {done} of {total} "
                         "notebook(s) graded")
        self.signal, self.graded, self.done, self.total = signum, graded, done, total


def _kept(graded, warn=None) -> dict:
    """``{(student, lesson): submission}`` in that order: one notebook per student and
    lesson, the best when several were handed in (``warn`` says which was kept)."""
    best: dict[tuple[str, str], _Submission] = {}
    for sub in sorted(graded, key=lambda s: (s.student, s.lesson, str(s.path))):
        key = (sub.student, sub.lesson)
        if key in best:
            kept = max(best[key], sub, key=lambda s: s.points)
            other = sub if kept is best[key] else best[key]
            if warn:
                warn(f"{sub.student} handed in several notebooks of lesson {sub.lesson}: "
                     f"graded {kept.path} ({kept.points} points), not {other.path}")
            best[key] = kept
        else:
            best[key] = sub
    return best


def _missing_rows(student, lesson, subs):
    """``missing`` rows for a lesson ``student`` handed in no gradable notebook of; the
    message names the student's notebooks that were skipped, and why."""
    skipped = "".join(f" {s.path} was skipped: {s.problem}." for s in subs
                      if s.student == student and s.problem)
    return [_row(student, e, "missing", f"no notebook of lesson {lesson} from {student}.{skipped}")
            for e in _lesson_exercises(lesson)]


async def _grade_all(todo, timeout, jobs, on_graded):
    """Grade ``todo`` side by side, ``jobs`` at a time, calling ``on_graded(submission)``
    as each finishes. On SIGINT or SIGTERM the running notebooks are cancelled (their
    kernels shut down, their folders removed) and the signal's number is returned."""
    loop, task, stopped = asyncio.get_running_loop(), asyncio.current_task(), []
    gate = asyncio.Semaphore(jobs)

    def stop(signum):
        if not stopped:                 # a second Ctrl-C must not cut the clean-up short
            stopped.append(signum)
            task.cancel()

    async def one(sub):
        async with gate:
            await _grade_submission(sub, timeout)
        if not stopped:             # one cut short by the stop is not graded
            on_graded(sub)

    watched = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop, signum)
            watched.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):
            pass                        # Windows, or not the main thread: Python's default
    try:
        await asyncio.gather(*(one(s) for s in todo))
    except asyncio.CancelledError:
        if not stopped:
            raise
    finally:
        for signum in watched:
            loop.remove_signal_handler(signum)
    return stopped[0] if stopped else None


def grade(paths, timeout=_DEFAULT_TIMEOUT, jobs=None, progress=True, warn=None, on_graded=None):
    """Grade the notebooks under ``paths``. Returns ``(rows, graded)``: the gradebook rows
    (students in name order, lessons in order, exercises in notebook order; ``missing``
    rows for a lesson a student handed in no gradable notebook of) and the submissions
    those rows come from, one per student and lesson.

    ``on_graded(rows, graded)``, if given, is called each time a notebook finishes, with
    the same for the notebooks finished so far (no ``missing`` rows yet). Raises
    :class:`Interrupted` on SIGINT or SIGTERM, once the running kernels are shut down."""
    warn = warn or (lambda text: print(f"minigrad.grade: {text}", file=sys.stderr))
    jobs = jobs or min(os.cpu_count() or 1, 8)
    subs = [_recognise(path, student) for path, student in find_notebooks(paths, warn)]
    for sub in subs:
        if sub.problem:
            warn(f"skipped {sub.path}: {sub.problem}")
    todo = sorted((s for s in subs if s.lesson), key=lambda s: (s.student, s.lesson, str(s.path)))
    if not todo:
        raise UsageError(f"none of the {len(subs)} notebook(s) found is a minigrad lesson notebook")

    bar = _Progress(len(todo)) if progress else None
    finished = []

    def graded_one(sub):
        finished.append(sub)
        if bar:
            bar.update(sub)
        if on_graded:
            kept = list(_kept(finished).values())
            on_graded([r for sub in kept for r in sub.rows], kept)

    stopped_by = asyncio.run(_grade_all(todo, timeout, jobs, graded_one))
    if bar:
        bar.close()
    if stopped_by is not None:
        raise Interrupted(stopped_by, list(_kept(finished).values()), len(finished), len(todo))

    kept = _kept(todo, warn)
    students = sorted({s.student for s in subs})
    lessons = sorted({s.lesson for s in todo})
    rows = []
    for student in students:
        for lesson in lessons:
            sub = kept.get((student, lesson))
            rows += sub.rows if sub is not None else _missing_rows(student, lesson, subs)
    return rows, list(kept.values())


def _write_gradebook(rows, path: _Path):
    """The CSV, written whole (a temporary file renamed over ``path``)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(r.as_dict() for r in rows)
    _write_atomically(path, text.getvalue())


def _summary(rows) -> str:
    """The terminal table: one line per student, points per lesson and the total."""
    lessons = sorted({r.lesson for r in rows})
    students = sorted({r.student for r in rows})
    def score(student, lesson=None):
        mine = [r for r in rows if r.student == student and (lesson is None or r.lesson == lesson)]
        return f"{sum(r.points for r in mine)}/{sum(r.max_points for r in mine)}"
    header = ["student"] + [f"lesson {lesson}" for lesson in lessons] + ["total"]
    table = [header] + [[s] + [score(s, lesson) for lesson in lessons] + [score(s)] for s in students]
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
        target = folder / sub.student / (sub.path.stem + ".md")
        total = sum(r.max_points for r in sub.rows)
        lines = [f"# {sub.student}: lesson {sub.lesson} ({sub.path.name})", "",
                 f"**{sub.points} / {total} points**", "",
                 "| exercise | status | points | message |", "|---|---|---|---|"]
        for r in sub.rows:
            message = r.message.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{r.exercise}` | {_ICONS.get(r.status, '')} {r.status} | "
                         f"{r.points}/{r.max_points} | {message} |")
        lines += ["", "Points: warm-up 1, core 2, stretch 3, for an exercise that passes its check."]
        _write_atomically(target, "\n".join(lines) + "\n")
        written.append(target)
    return written


def _output_problems(args):
    """What is wrong with ``--out`` and ``--feedback``, found before anything is graded."""
    problems = [_output_problem(args.out, args.submissions)]
    if args.feedback is not None:
        problems.append(_output_problem(args.feedback, args.submissions, folder=True))
        if args.feedback.resolve() == args.out.resolve():
            problems.append(f"--out and --feedback are the same place ({args.out}): give each its own")
    return [p for p in problems if p]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.grade",
        description="Run students' lesson notebooks and grade their exercises with "
                    "minigrad's checks; writes a CSV gradebook.",
        epilog="Exit status: 0 when grading finished (whatever the grades); 2 on a usage "
               "error (no such path, no lesson notebooks, an --out or --feedback that is an "
               "input, inside a submission folder, or cannot be written: checked before "
               "grading); 130 (Ctrl-C) or 143 (SIGTERM) when interrupted, after writing the "
               "rows of the notebooks graded so far.")
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION",
                        help="a notebook, or a folder searched for *.ipynb")
    parser.add_argument("--out", type=_path_argument, default=_Path("gradebook.csv"),
                        help="the gradebook CSV to write (default: gradebook.csv); rewritten "
                             "as each notebook is graded")
    parser.add_argument("--timeout", type=_seconds, default=_DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="time for one notebook's cells, and again for its checks "
                             f"(default: {_DEFAULT_TIMEOUT:.0f})")
    parser.add_argument("--feedback", type=_path_argument, metavar="DIR",
                        help="also write DIR/<student>/<notebook>.md for each notebook")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="notebooks run at the same time (default: the number of CPUs)")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    for problem in _output_problems(args):
        parser.error(problem)
    try:
        rows, graded = grade(args.submissions, timeout=args.timeout, jobs=args.jobs,
                             on_graded=lambda rows, graded: _write_gradebook(rows, args.out))
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except Interrupted as stop:
        kept = "nothing was written"
        if stop.graded:
            kept = f"their rows are in {args.out}"
            if args.feedback:
                _write_feedback(stop.graded, args.feedback)
                kept += f", their feedback in {args.feedback}"
        print(f"{parser.prog}: {stop}; {kept}", file=sys.stderr)
        return 128 + stop.signal
    _write_gradebook(rows, args.out)
    written = _write_feedback(graded, args.feedback) if args.feedback else None
    try:
        if rows:
            print(_summary(rows))
        print(f"\ngradebook: {_shown(args.out)} ({len(rows)} rows)")
        if written is not None:
            print(f"feedback: {len(written)} file(s) in {_shown(args.feedback)}")
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone()
    return 0


if __name__ == "__main__":
    sys.exit(main())
