"""The pieces the graders run inside a kernel, run here in-process: the registry, the
deferral of the learner's own check calls, grade_lesson's result lines and time shares,
and the nbgrader test-cell helper autograde()."""
import json

import pytest

import minigrad as torch
from minigrad.exercises import lesson02
from minigrad.exercises.grading import MARKER, autograde, grade_lesson
from minigrad.exercises.registry import EXERCISES, LEVEL_POINTS, find_exercise, lesson_exercises

from exercise_support import stub


def test_registry_names_real_checks_and_levels():
    assert set(EXERCISES) == {f"{n:02d}" for n in range(12)}
    for lesson, exercises in EXERCISES.items():
        for e in exercises:
            assert callable(e.load_check()), e
            assert e.points == LEVEL_POINTS[e.level]
            assert e.load_check().__name__ == e.check
    assert [e.name for e in lesson_exercises("02")] == ["predict_chain", "make_clip_hook", "attach_nan_watch"]
    assert find_exercise("02", "predict_chain").points == 1
    with pytest.raises(KeyError, match="known: predict_chain"):
        find_exercise("02", "nope")


def test_learner_checks_are_deferred_under_a_grader(monkeypatch, capsys):
    calls = []
    def answer(max_norm):
        calls.append(max_norm)
        raise NotImplementedError
    monkeypatch.setenv("MINIGRAD_GRADER", "1")
    result = lesson02.check_clip_hook(answer)
    assert result.status == "deferred" and not calls
    assert "checked by the grader" in capsys.readouterr().out
    monkeypatch.delenv("MINIGRAD_GRADER")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert lesson02.check_clip_hook(answer).status == "deferred" and not calls
    monkeypatch.delenv("NBGRADER_EXECUTION")
    assert lesson02.check_clip_hook(answer).status == "not implemented" and calls


def _right_predict_chain(grad, hooks):
    for hook in hooks:
        result = hook(grad)
        grad = grad if result is None else result
    return grad


def _right_clip_hook(max_norm):
    def hook(g):
        norms = g.pow(2).sum(dim=1, keepdim=True).sqrt()
        return g * torch.where(norms > max_norm, max_norm / norms.clamp(min=1e-12),
                               torch.ones_like(norms))
    return hook


def test_grade_lesson_prints_one_line_per_exercise_and_shares_the_time(capsys):
    def loops(grad, hooks):
        while True:
            pass
    namespace = {"predict_chain": loops, "make_clip_hook": _right_clip_hook,
                 # a learner's fake check must not be used
                 "check_clip_hook": lambda f: print("✅")}
    grade_lesson("02", namespace, "n0nce", budget=3.0)
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith(f"{MARKER} n0nce ") for line in lines)
    records = [json.loads(line.split(" ", 2)[2]) for line in lines]
    assert [(r["exercise"], r["status"]) for r in records] == [
        ("predict_chain", "timeout"), ("make_clip_hook", "passed"), ("attach_nan_watch", "missing")]
    assert "after 1 s" in records[0]["message"]       # its share: a third of 3 s


def test_autograde_raises_only_under_nbgrader(monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert autograde("02", "make_clip_hook", {"make_clip_hook": stub}) is None
    assert capsys.readouterr().out == ""               # learners see nothing
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(AssertionError, match="not implemented"):
        autograde("02", "make_clip_hook", {"make_clip_hook": stub})
    with pytest.raises(AssertionError, match="not defined"):
        autograde("02", "make_clip_hook", {})
    autograde("02", "predict_chain", {"predict_chain": _right_predict_chain})
    assert "✅" in capsys.readouterr().out


def test_watch_calls_sees_a_call_under_any_name_and_on_other_threads():
    import threading

    from minigrad.exercises import lesson09, watch_calls
    reference = lesson09._reference_saved_bytes
    alias = reference                    # what a learner imported before the check ran

    def calls_it():
        try:
            alias(None, None)
        except Exception:                # noqa: BLE001 - only the call matters
            pass
    with watch_calls([reference]) as ran:
        worker = threading.Thread(target=calls_it)
        worker.start()
        worker.join()
    assert ran == ["_reference_saved_bytes"]
    with watch_calls({reference: "the reference"}) as ran:
        pass
    assert ran == []


def test_watch_calls_entered_again_inside_itself_restores_the_profiler():
    import sys

    from minigrad.exercises import watch_calls
    before = sys.getprofile()
    watcher = watch_calls([test_registry_names_real_checks_and_levels])
    with watcher:
        with watcher:                    # a nested backward inside a watched pass
            pass
        assert sys.getprofile() == watcher._profile
    assert sys.getprofile() is before
