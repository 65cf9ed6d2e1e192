"""Self-checking exercises for the lessons.

A check takes the learner's own function or object, runs it, and prints one friendly,
specific verdict (✅ or ❌ with what differs, or "not implemented yet"). Checks never
raise, so "Run All" goes through a whole lesson, and they never import a solution:
each check computes the expected answer from minigrad itself or states the property
it tests.

Each lesson's checks live in ``minigrad/exercises/lessonNN.py`` and are built from the
helpers here; ``registry.py`` lists every exercise (its learner names, check and level).

When a grader runs a notebook (``python -m minigrad.grade`` sets ``MINIGRAD_GRADER``,
nbgrader's autograde and validate set ``NBGRADER_EXECUTION``), the learner's own check
calls are *deferred*: they print a note instead of running, and the grader calls the
real checks itself (``minigrad/exercises/grading.py``). A check therefore runs once per
grading, and an infinite loop in an answer is met only where the grader limits its time.
"""
import os
import sys
import sysconfig
import threading
import traceback

import numpy as np

__all__ = ["Result", "run_check", "compare_values", "compare_sequences", "reachable_nodes",
           "watch_calls", "shortcut_taken", "unless_hooks_left", "predicted_by_hand",
           "check_prediction", "judge_predicted_order", "judge_returned_handles",
           "hook_queuing_callbacks"]

#: set (to anything non-empty) in a kernel's environment by ``python -m minigrad.grade``
_GRADER_ENV = "MINIGRAD_GRADER"

# True while minigrad.exercises.grading runs the checks itself (never deferred then)
_grader_is_checking = False


def _checks_deferred():
    """Whether a learner's check call should leave the checking to a grader (see above)."""
    if _grader_is_checking:
        return False
    return bool(os.environ.get(_GRADER_ENV) or os.environ.get("NBGRADER_EXECUTION"))


class Result:
    """The verdict of one check: ``ok``, a message and a ``status`` (``"passed"``,
    ``"failed"``, ``"not implemented"``, ``"error"`` when the learner's code raised, or
    ``"deferred"`` when a grader will check). Displays as one line."""

    def __init__(self, ok, message, status=None):
        self.ok = bool(ok)
        self.message = message
        self.status = status or ("passed" if self.ok else "failed")

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return ("✅ " if self.ok else "❌ ") + self.message

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))


def run_check(name, body):
    """Run ``body()`` (which returns a :class:`Result`), turning the learner's
    ``NotImplementedError`` and any other exception into a readable ❌ verdict.
    Under a grader (:func:`_checks_deferred`) ``body`` is not run."""
    if _checks_deferred():
        result = Result(False, f"{name}: checked by the grader after the notebook ran.", "deferred")
        print("⏳ " + result.message)
        return result
    try:
        result = body()
    except NotImplementedError:
        result = Result(False, f"{name}: not implemented yet (replace the `raise NotImplementedError` line).",
                        "not implemented")
    except AssertionError as exc:
        result = Result(False, f"{name}: {exc}")
    except Exception as exc:       # the learner's code raised: show where, briefly
        last = _learners_frame(exc.__traceback__) or traceback.extract_tb(exc.__traceback__)[-1]
        advice = next((a for text, a in _CRASH_ADVICE if text in str(exc)), "")
        result = Result(False, f"{name}: your code raised {type(exc).__name__}: {exc} "
                               f"(line {last.lineno}: {last.line}){advice}", "error")
    print(repr(result))
    return result


# library code: a crash is reported at the learner's deepest line, not inside these
_LIBRARY_DIRS = tuple(os.path.join(d, "") for d in
                      {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
                      | {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})

# (text in the exception's message, advice added to the verdict)
_CRASH_ADVICE = [
    ("'NoneType' object has no attribute 'next_functions'",
     ". A (None, 0) edge in next_functions stands for an input that needs no gradient: "
     "skip the None children."),
]


def _learners_frame(tb):
    """The deepest frame of ``tb`` outside minigrad and the installed libraries (the
    learner's line that led to the crash), or None if there is none."""
    mine = [f for f in traceback.extract_tb(tb)
            if not os.path.abspath(f.filename).startswith(_LIBRARY_DIRS)]
    return mine[-1] if mine else None


class watch_calls:
    """``with watch_calls(functions) as ran:`` collects in the list ``ran`` the name of
    each of ``functions`` (plain functions or methods; or a dict of them to the labels to
    collect instead of their names) whose code runs inside the block,
    on any thread, however the learner reached it (an alias imported before the check, a
    module attribute, a grader's fresh import: code objects compare by content). A check
    uses it to reject an answer that calls the check's own reference or the minigrad
    internals the exercise asks to write. Built on ``sys.setprofile``; the previous
    profilers come back at the end. No PyTorch counterpart: a grading aid."""

    def __init__(self, functions):
        labels = functions if isinstance(functions, dict) else {f: f.__qualname__ for f in functions}
        self._codes = {getattr(f, "__wrapped__", f).__code__: label for f, label in labels.items()}
        self.ran = []
        self._previous = []             # a stack: the same watcher may be entered again inside

    def _profile(self, frame, event, arg):
        if event == "call" and frame.f_code in self._codes:
            name = self._codes[frame.f_code]
            if name not in self.ran:
                self.ran.append(name)

    def __enter__(self):
        self._previous.append((sys.getprofile(), threading.getprofile()))
        if self._codes:
            sys.setprofile(self._profile)
            threading.setprofile(self._profile)
        return self.ran

    def __exit__(self, *exc):
        profile, thread_profile = self._previous.pop()
        sys.setprofile(profile)
        threading.setprofile(thread_profile)
        return False


def shortcut_taken(fn, *args, helpers=()):
    """``(fn(*args), taken)``: ``taken`` names what did the exercise's work for the
    learner's ``fn``: "a backward pass" when minigrad's engine ran meanwhile
    (``engine.real_engine_runs()`` moved: ``backward()``, ``record_events``, the stepper),
    else the first of ``helpers`` (functions, e.g. ``minigrad.viz.graph_nodes``) it
    called, else None. No PyTorch counterpart: a grading aid."""
    from minigrad.autograd import engine
    before = engine.real_engine_runs()
    with watch_calls(helpers) as called:
        result = fn(*args)
    if engine.real_engine_runs() != before:
        return result, "a backward pass"
    return result, called[0] if called else None


def _as_array(value):
    if hasattr(value, "detach"):        # a minigrad (or torch) tensor
        return value.detach().numpy()
    return np.asarray(value)


def compare_values(what, got, expected, atol=1e-5, rtol=1e-4):
    """A graded comparison of two tensors/arrays: None, shape, then the first
    differing index and both values."""
    if got is None:
        return Result(False, f"{what} is None, expected a tensor of shape {list(_as_array(expected).shape)}.")
    got_a, exp_a = _as_array(got), _as_array(expected)
    if got_a.shape != exp_a.shape:
        return Result(False, f"{what} has shape {list(got_a.shape)}, expected {list(exp_a.shape)}.")
    close = np.isclose(got_a, exp_a, atol=atol, rtol=rtol)
    if not close.all():
        idx = tuple(int(i) for i in np.argwhere(~close)[0])
        where = f"at index {idx[0] if len(idx) == 1 else list(idx)}" if idx else ""
        return Result(False, f"{what} has the right shape but wrong values {where}: "
                             f"got {got_a[idx]:.6g}, expected {exp_a[idx]:.6g}.")
    return Result(True, f"{what} is right.")


def compare_sequences(what, got, expected):
    """Compare two lists (e.g. a hook firing order), naming the first difference."""
    got, expected = list(got), list(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        if g != e:
            return Result(False, f"{what}: entry {i} is {g!r}, expected {e!r} "
                                 f"(got {got}, expected {expected}).")
    if len(got) != len(expected):
        more = "more" if len(got) > len(expected) else "fewer"
        return Result(False, f"{what}: {len(got)} entries, {more} than the {len(expected)} expected "
                             f"(got {got}, expected {expected}).")
    return Result(True, f"{what} is right.")


def unless_hooks_left(left, kind, fix, passed):
    """``passed`` (a check's success), unless ``left`` hooks of ``kind`` are still
    registered after a right answer: leftovers fire in every later pass of the notebook,
    so each check whose exercise registers hooks ends with this."""
    if left:
        return Result(False, f"the answer is right, but {left} {kind} still registered: "
                             f"{fix}, or they fire in every later pass.")
    return passed


def reachable_nodes(root):
    """Every node reachable from ``root`` through ``next_functions``, each once, in the
    order a depth-first walk first meets them (worked out without minigrad's engine)."""
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(nxt for nxt, _ in node.next_functions)
    return seen


def predicted_by_hand(predict, what, answer, see, measured_with=()):
    """Call ``predict()``, a learner's prediction of a backward pass: ``(its answer,
    None)``, or ``(None, a ❌ Result)`` when it ran a backward pass to find ``what``
    (``engine.real_engine_runs()`` moved), or called one of ``measured_with`` (for
    :class:`watch_calls`: what runs a pass that is not a backward one, e.g.
    ``Module.state_dict``), which measures instead of predicting. ``answer`` says what to
    return instead, ``see`` the cell that runs the pass."""
    with watch_calls(measured_with) as called:
        got, taken = shortcut_taken(predict)
    ran = "ran a backward pass" if taken else f"called {called[0]}" if called else None
    if ran:
        return None, Result(False, f"your function {ran} to find {what}: that "
                                   f"measures it instead of predicting it. Return {answer} "
                                   f"written by hand, then run {see} to see if you were right.")
    return got, None


def check_prediction(name, predict, what, answer, see, judge):
    """The check of a prediction exercise: ``run_check(name, ...)`` of
    ``judge(prediction)`` once :func:`predicted_by_hand` has accepted ``predict()`` (the
    ❌ for a prediction that ran the pass otherwise)."""
    def body():
        got, ran = predicted_by_hand(predict, what, answer, see)
        return ran if ran is not None else judge(got)
    return run_check(name, body)


def judge_predicted_order(predict, events, actual, *, see, each_once, right, explain,
                          measured_with=(), who="the engine"):
    """The verdict on ``predict()``, a learner's prediction of the order in which the
    ``events`` (names) of one backward pass happen; ``actual()`` runs that pass and
    returns the real order. A prediction must be written by hand: one that runs a
    backward pass (``engine.real_engine_runs()`` moves) is rejected. ``see`` names the
    cell that shows the pass, ``each_once`` says why no event repeats, ``right`` what a
    right answer shows, ``explain(got, want)`` why the first difference is what it is
    (or None). For a pass that is not a backward one, ``measured_with`` lists what runs it
    (see :func:`predicted_by_hand`) and ``who`` names what sets the order. A wrong order's
    verdict names the first event out of place and why, never the right order, nor the
    event that belongs there."""
    got, ran = predicted_by_hand(predict, "the order", "a list of names", see, measured_with)
    if ran is not None:
        return ran
    if not isinstance(got, (list, tuple)):
        return Result(False, f"you returned {type(got).__name__}; return a list of event "
                             f"names, e.g. [{events[0]!r}, ...].")
    got = list(got)
    unknown = [g for g in got if g not in events]
    if unknown:
        return Result(False, f"unknown event name(s) {unknown}: use exactly these names: "
                             f"{list(events)}.")
    twice = sorted({g for g in got if got.count(g) > 1})
    if twice:
        return Result(False, f"{twice} appear more than once: {each_once}")
    want = actual()
    missing = [w for w in want if w not in got]
    if missing:
        return Result(False, f"your order misses {missing}: all {len(want)} events happen once.")
    if got == want:
        return Result(True, f"right: {' → '.join(want)}. {right}")
    i = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
    why = explain(got, want)
    # the first miss and why, never the right order: one throwaway guess must not replace
    # the prediction (a learner who reads the answer here has nothing left to predict)
    return Result(False, f"your order first goes wrong at event {i + 1}: {who} does not run "
                         f"{got[i]!r} there." + (f" {why}" if why else
                                                 " Think again about what must happen before it."))


def judge_returned_handles(handles, run_again, *, not_handles, still_active):
    """The verdict on the handles a learner's function returned for every hook it
    registered: ``handles`` must be a list or tuple of objects with ``remove()`` (else
    ``not_handles``); after removing each one, ``run_again()`` repeats the checked pass and
    returns whether any of those hooks still acted (then ``still_active``)."""
    if not isinstance(handles, (list, tuple)) or not all(hasattr(h, "remove") for h in handles):
        return Result(False, not_handles)
    for h in handles:
        h.remove()
    if run_again():
        return Result(False, still_active)
    return Result(True, "removing the returned handles removes every hook.")


def hook_queuing_callbacks(log, hook_says, cb1_says, cb2_says):
    """A tensor hook for the final-callback pass of lessons 07 and 10 (spec claim c08): it
    logs ``hook_says`` and queues two final callbacks with ``queue_callback``, cb1 then
    cb3; cb1 logs ``cb1_says()`` and queues cb2, which logs ``cb2_says``; cb3 logs "cb3".
    The engine drains its callbacks first in, first out, so they log cb1, cb3, cb2."""
    from minigrad.autograd import Variable
    queue = Variable._execution_engine.queue_callback

    def cb1():
        log.append(cb1_says())
        queue(lambda: log.append(cb2_says))

    def hook(grad):
        log.append(hook_says)
        queue(cb1)
        queue(lambda: log.append("cb3"))
    return hook
