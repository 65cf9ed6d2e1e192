"""Every exercise of the lessons, in one table: the one place to edit when adding one.

Each row says which lesson the exercise belongs to, the name(s) the learner defines in
the notebook (passed to the check in that order), the check function in
``minigrad/exercises/lessonNN.py`` and the exercise's level. The level gives its points:
warm-up 1, core 2, stretch 3.

Three tools read this table:

* ``tools/student_versions.py`` finds the notebook cell that defines each exercise's
  names, gives it nbgrader metadata, and adds an autograder test cell worth its points;
* ``python -m minigrad.grade`` calls each check on the learner's objects after the
  notebook ran and writes a gradebook;
* :func:`minigrad.exercises.grading.autograde`, the call in those nbgrader test cells.

This module imports nothing heavy, so tools can read the table cheaply.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass as _dataclass

__all__ = ["LEVEL_POINTS", "Exercise", "EXERCISES", "lesson_exercises", "find_exercise"]

LEVEL_POINTS = {"warm-up": 1, "core": 2, "stretch": 3}


@_dataclass(frozen=True)
class Exercise:
    """One exercise: ``check(*learner objects)`` grades it."""

    lesson: str                 # "02": the lesson notebook's metadata.minigrad.lesson
    name: str                   # the exercise's id: gradebook column, nbgrader grade_id
    objects: tuple[str, ...]    # the learner's names the check takes, in order
    check: str                  # function name in minigrad/exercises/lessonNN.py
    level: str                  # a key of LEVEL_POINTS

    @property
    def points(self) -> int:
        return LEVEL_POINTS[self.level]

    @property
    def module(self) -> str:
        return f"minigrad.exercises.lesson{self.lesson}"

    def load_check(self, fresh: bool = False):
        """The check function. With ``fresh=True`` the ``minigrad.exercises`` modules are
        imported again from their files first, so a check (or a helper) that code in the
        same interpreter replaced or monkeypatched is not the one used."""
        if fresh:
            for name in [m for m in sys.modules
                         if m == "minigrad.exercises" or m.startswith("minigrad.exercises.")]:
                del sys.modules[name]
        return getattr(importlib.import_module(self.module), self.check)


# lesson, learner's name(s) (one string, or a tuple when the check takes several),
# check function in lessonNN.py, level
_TABLE = [
    ("00", "count_nodes",              "check_count_nodes",              "warm-up"),
    ("00", "find_leaves",              "check_find_leaves",              "core"),
    ("00", "count_paths",              "check_count_paths",              "stretch"),
    ("01", "predict_engine_order",     "check_predict_engine_order",     "warm-up"),
    ("01", "topo_order",               "check_topo_order",               "core"),
    ("01", "engine_order",             "check_engine_order",             "stretch"),
    ("02", "predict_chain",            "check_predict_chain",            "warm-up"),
    ("02", "make_clip_hook",           "check_clip_hook",                "core"),
    ("02", "attach_nan_watch",         "check_attach_nan_watch",         "stretch"),
    ("03", "predict_second_backward",  "check_predict_second_backward",  "warm-up"),
    ("03", "attach_sgd_every",         "check_attach_sgd_every",         "core"),
    ("03", "my_retain_grad",           "check_my_retain_grad",           "stretch"),
    ("04", "predict_prehook_none",     "check_predict_prehook_none",     "warm-up"),
    ("04", "first_nan_node",           "check_first_nan_node",           "core"),
    ("04", "replay",                   "check_replay",                   "stretch"),
    ("05", "predict_counts",           "check_predict_counts",           "warm-up"),
    ("05", "grad_norm_when_ready",     "check_grad_norm_when_ready",     "core"),
    ("05", "my_all_hook",              "check_my_all_hook",              "stretch"),
    ("06", "predict_nested",           "check_predict_nested",           "warm-up"),
    ("06", "half_precision_hooks",     "check_half_precision_hooks",     "core"),
    ("06", "my_checkpoint",            "check_checkpoint",               "stretch"),
    ("07", "predict_callback_order",   "check_callback_order",           "warm-up"),
    ("07", "unused_parameters",        "check_unused_parameters",        "core"),
    ("07", "attach_bucketed_all_reduce", "check_bucketed_all_reduce",    "stretch"),
    ("08", "predict_module_hook_order", "check_module_hook_order",       "warm-up"),
    ("08", "add_gradient_reversal",    "check_gradient_reversal",        "core"),
    ("08", "grad_cam_pp",              "check_grad_cam_pp",              "stretch"),
    ("09", "predict_module_op_trace",  "check_module_op_trace",          "warm-up"),
    ("09", "saved_bytes_per_module",   "check_saved_bytes_per_module",   "core"),
    ("09", "attach_prefetching_fsdp",  "check_prefetching_fsdp",         "stretch"),
    ("10", "count_dependencies",       "check_count_dependencies",       "warm-up"),
    ("10", "run_backward_core",        "check_engine_loop",              "core"),
    ("10", "my_run_backward",          "check_full_engine",              "stretch"),
    ("11", "predict_checkpoint_hook_order", "check_checkpoint_hook_order", "warm-up"),
    ("11", "skip_mismatched_keys",     "check_skip_mismatched_keys",     "core"),
    ("11", "attach_lookahead",         "check_lookahead",                "stretch"),
]


def _build(table) -> dict[str, tuple[Exercise, ...]]:
    lessons: dict[str, list[Exercise]] = {}
    for lesson, objects, check, level in table:
        objects = (objects,) if isinstance(objects, str) else tuple(objects)
        if level not in LEVEL_POINTS:
            raise ValueError(f"exercise {objects[0]} of lesson {lesson}: unknown level {level!r} "
                             f"(one of {', '.join(LEVEL_POINTS)})")
        exercise = Exercise(lesson, objects[0], objects, check, level)
        if any(e.name == exercise.name for e in lessons.get(lesson, [])):
            raise ValueError(f"lesson {lesson} lists the exercise {exercise.name} twice")
        lessons.setdefault(lesson, []).append(exercise)
    return {lesson: tuple(exercises) for lesson, exercises in lessons.items()}


#: lesson ("00".."11") -> its exercises, in notebook order
EXERCISES: dict[str, tuple[Exercise, ...]] = _build(_TABLE)


def lesson_exercises(lesson: str) -> tuple[Exercise, ...]:
    """The exercises of ``lesson`` (empty for a lesson without exercises)."""
    return EXERCISES.get(str(lesson), ())


def find_exercise(lesson: str, name: str) -> Exercise:
    """The exercise ``name`` of ``lesson``; KeyError naming the known ones otherwise."""
    for exercise in lesson_exercises(lesson):
        if exercise.name == name:
            return exercise
    known = ", ".join(e.name for e in lesson_exercises(lesson)) or "none"
    raise KeyError(f"lesson {lesson} has no exercise {name!r} (known: {known})")
