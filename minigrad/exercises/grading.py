"""Grading inside the learner's kernel, after their notebook ran.

Two graders call in here:

* ``python -m minigrad.grade`` appends one cell to each notebook it runs; that cell
  imports this module afresh and calls :func:`grade_lesson`, which runs every exercise's
  real check on the learner's objects (looked up by name in the notebook's globals) and
  prints one machine-readable line per exercise;
* nbgrader: each exercise of a student version is followed by a read-only test cell
  calling :func:`autograde`. When a learner runs it, it does nothing; under nbgrader's
  autograde (or validate) it runs the check and raises ``AssertionError`` unless the
  exercise passes, so nbgrader gives the cell's points only for a passing answer.

Either way the check functions are imported again from their files, so a learner who
redefines ``check_...`` in the notebook, or replaces it in ``minigrad.exercises.lessonNN``,
does not change the grade. (Code that runs in the same kernel can still tamper with
anything in it: these graders guard against mistakes and casual cheating, like nbgrader
itself, not against a determined attacker.)
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import time

from .registry import find_exercise as _find_exercise, lesson_exercises as _lesson_exercises

__all__ = ["MARKER", "CheckTimeout", "run_exercise", "grade_lesson", "autograde"]

#: first word of each result line grade_lesson prints
MARKER = "MINIGRAD-GRADE"


class CheckTimeout(BaseException):
    """Raised in the kernel when a check runs past its time (a BaseException, so the
    checks' ``except Exception`` does not turn it into an ordinary failure)."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise CheckTimeout in this (main) thread after ``seconds``. Without SIGALRM
    (Windows, or not the main thread) there is no limit here: the outer grader still
    stops the whole kernel."""
    usable = hasattr(signal, "setitimer") and seconds is not None
    if usable:
        try:
            def expired(signum, frame):
                raise CheckTimeout()
            previous = signal.signal(signal.SIGALRM, expired)
        except ValueError:          # not the main thread
            usable = False
    if usable:
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
    try:
        yield
    finally:
        if usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def run_exercise(exercise, namespace, seconds=None, quiet=True):
    """Run ``exercise``'s check on the learner's objects from ``namespace`` (a notebook's
    globals), at most ``seconds`` long. Returns ``(status, message)`` where status is
    ``passed``, ``failed``, ``not implemented``, ``error``, ``timeout`` or ``missing``.
    The check is the real one, freshly imported; ``quiet`` swallows what it prints."""
    missing = [name for name in exercise.objects if name not in namespace]
    if missing:
        return "missing", (f"{', '.join(missing)} is not defined in the notebook "
                           "(was it renamed, or its cell deleted or not run?)")
    check = exercise.load_check(fresh=True)
    exercises = sys.modules["minigrad.exercises"]   # the fresh package, just re-imported
    objects = [namespace[name] for name in exercise.objects]
    printed = io.StringIO()
    exercises._grader_is_checking = True
    try:
        with contextlib.redirect_stdout(printed) if quiet else contextlib.nullcontext():
            with _time_limit(seconds):
                result = check(*objects)
    except CheckTimeout:
        return "timeout", (f"{exercise.name}: the check was still running after {seconds:.0f} s "
                           "(an infinite loop?), so it was stopped.")
    except BaseException as exc:    # the check itself broke, or the learner's code exited
        return "error", f"{exercise.name}: checking raised {type(exc).__name__}: {exc}"
    finally:
        exercises._grader_is_checking = False
    status = getattr(result, "status", None) or ("passed" if result else "failed")
    return status, getattr(result, "message", str(result))


def grade_lesson(lesson, namespace, nonce, budget, only=None, results_path=None):
    """Grade every exercise of ``lesson`` (or those named in ``only``) in ``namespace``
    and print, for each in order, one line
    ``MINIGRAD-GRADE <nonce> {"exercise": ..., "status": ..., "message": ...}``.
    With ``results_path`` each line is also appended to that file and synced to disk
    before the next check runs, so a check that kills the kernel cannot take the
    earlier results with it (printed output still in flight would be lost).

    ``budget`` seconds are shared between the checks: each gets an equal part of what
    is left, so one infinite loop cannot use up the time of the exercises after it.
    ``nonce`` is chosen by the grader for this run, so lines the learner's own code
    printed cannot pass for results."""
    out = sys.stdout
    exercises = [e for e in _lesson_exercises(lesson) if only is None or e.name in only]
    deadline = time.monotonic() + budget
    for index, exercise in enumerate(exercises):
        share = max((deadline - time.monotonic()) / (len(exercises) - index), 1.0)
        status, message = run_exercise(exercise, namespace, share)
        record = {"exercise": exercise.name, "status": status, "message": message}
        line = f"{MARKER} {nonce} {json.dumps(record, ensure_ascii=True)}\n"
        out.write(line)
        out.flush()
        if results_path is not None:
            with open(results_path, "a", encoding="utf-8") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())


def autograde(lesson, name, namespace):
    """The body of an nbgrader test cell for exercise ``name`` of ``lesson``.

    When you run it yourself it does nothing. Under nbgrader's autograde or validate
    (``NBGRADER_EXECUTION`` is set) it runs the exercise's real check on your objects
    in ``namespace`` (pass ``globals()``), prints the verdict, and raises
    ``AssertionError`` unless the exercise passes."""
    if not os.environ.get("NBGRADER_EXECUTION"):
        return None
    exercise = _find_exercise(lesson, name)
    status, message = run_exercise(exercise, namespace, seconds=None, quiet=True)
    print(("✅ " if status == "passed" else "❌ ") + message)
    if status != "passed":
        raise AssertionError(f"{exercise.name} ({status}): {message}")
    return None
