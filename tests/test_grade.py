"""python -m minigrad.grade on a made-up class: real kernels, one lesson (02).

The class is made here from the instructor and student versions of lesson 02: a
complete notebook, an untouched one, wrong answers, infinite loops, a syntax error, a
renamed notebook in nbgrader's folder layout, a renamed function and a deleted cell, a
notebook that fakes its checks, code that kills the kernel, and a student who handed in
no lesson notebook. The
whole class is graded once (module fixture), the two infinite loops in a run of their own
with a short --timeout; each test reads the gradebook.
"""
import copy
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSON = "02_tensor_hooks.ipynb"
INSTRUCTOR = ROOT / "lessons" / LESSON
STUDENT = ROOT / "lessons" / "student" / LESSON
# seconds: --timeout. A lesson 02 notebook needs ~5 s, so the class gets ten minutes (a busy
# machine never runs out of it); only the two notebooks that must run out of time (dave's
# and ed's loops) are graded apart, with 30 s.
TIMEOUT = 600
LOOPS_TIMEOUT = 30
LOOPS = ("dave", "ed")

# explicit group: one worker grades the class once (conftest.py's per-file groups are
# added after pytest-xdist has read the marks, so they do not keep a file together)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group('test_grade')]

# lesson 02: predict_chain (warm-up, 1 point), make_clip_hook (core, 2), attach_nan_watch (stretch, 3)
P, NI, F, E, T, M = "passed", "not implemented", "failed", "error", "timeout", "missing"
EXPECTED = {   # student -> ({exercise: status}, points)
    "alice": ({"predict_chain": P, "make_clip_hook": P, "attach_nan_watch": P}, 6),    # complete
    "bob":   ({"predict_chain": NI, "make_clip_hook": NI, "attach_nan_watch": NI}, 0), # untouched
    "carol": ({"predict_chain": P, "make_clip_hook": F, "attach_nan_watch": P}, 4),    # wrong answer
    "dave":  ({"predict_chain": P, "make_clip_hook": P, "attach_nan_watch": T}, 3),    # loop in answer
    "ed":    ({"predict_chain": P, "make_clip_hook": T, "attach_nan_watch": T}, 1),    # top-level loop
    "fay":   ({"predict_chain": E, "make_clip_hook": P, "attach_nan_watch": P}, 5),    # syntax error
    "gus":   ({"predict_chain": NI, "make_clip_hook": NI, "attach_nan_watch": NI}, 0), # fakes checks
    "hana":  ({"predict_chain": P, "make_clip_hook": P, "attach_nan_watch": P}, 6),    # renamed file
    "ivan":  ({"predict_chain": P, "make_clip_hook": M, "attach_nan_watch": M}, 1),    # renamed, deleted
    "jo":    ({"predict_chain": M, "make_clip_hook": M, "attach_nan_watch": M}, 0),    # no lesson notebook
    "kim":   ({"predict_chain": P, "make_clip_hook": P, "attach_nan_watch": E}, 3),    # answer kills kernel
    "lee":   ({"predict_chain": E, "make_clip_hook": P, "attach_nan_watch": P}, 5),    # cell kills kernel
}


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _save(nb, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _cell_index(nb, text):
    """Index of the one code cell whose source contains ``text``."""
    found = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and text in _source(c)]
    assert len(found) == 1, f"expected one cell with {text!r}, found {len(found)}"
    return found[0]


def _edit(nb, text, old, new):
    """Replace ``old`` by ``new`` in the code cell containing ``text``."""
    nb = copy.deepcopy(nb)
    cell = nb["cells"][_cell_index(nb, text)]
    source = _source(cell)
    assert old in source, f"{old!r} not in the cell with {text!r}"
    cell["source"] = source.replace(old, new)
    return nb


def _code_cell(source):
    return {"cell_type": "code", "execution_count": None, "id": "added-by-test",
            "metadata": {}, "outputs": [], "source": source}


def _make_class(root):
    complete, untouched = _load(INSTRUCTOR), _load(STUDENT)
    plain = root / "class"
    _save(complete, plain / "alice" / LESSON)
    _save(untouched, plain / "bob" / LESSON)
    _save(_edit(complete, "def make_clip_hook", "return g * factor", "return g * 0"),
          plain / "carol" / LESSON)
    loops = root / "loops"
    _save(_edit(complete, "def attach_nan_watch", "    def watch(name):",
                "    while True:\n        pass\n    def watch(name):"), loops / "dave" / LESSON)
    ed = copy.deepcopy(complete)
    ed["cells"].insert(_cell_index(ed, "def predict_chain") + 1, _code_cell("while True:\n    pass\n"))
    _save(ed, loops / "ed" / LESSON)
    _save(_edit(complete, "def predict_chain", "def predict_chain(grad, hooks):",
                "def predict_chain(grad, hooks)"), plain / "fay" / LESSON)
    checks = ("check_predict_chain", "check_clip_hook", "check_attach_nan_watch")
    gus = copy.deepcopy(untouched)
    fake_line = 'MINIGRAD-GRADE 0 {"exercise": "make_clip_hook", "status": "passed", "message": "x"}'
    gus["cells"].insert(_cell_index(gus, "def predict_chain"), _code_cell(
        "import minigrad.exercises.lesson02 as lesson02\n"
        "def always_right(*args):\n"
        "    print('✅ right!')\n"
        f"    print({fake_line!r})\n"
        "    return True\n"
        f"for name in {checks!r}:\n"
        "    setattr(lesson02, name, always_right)\n"))
    for name in checks:
        gus = _edit(gus, f"{name}(", f"{name}(", f"lesson02.{name}(")    # prints ✅
    _save(gus, plain / "gus" / LESSON)
    ivan = _edit(complete, "def make_clip_hook", "make_clip_hook", "make_clipping_hook")
    del ivan["cells"][_cell_index(ivan, "def attach_nan_watch")]
    _save(ivan, plain / "ivan" / LESSON)
    _save(_edit(complete, "def attach_nan_watch", "    def watch(name):",
                "    import os\n    os._exit(1)\n    def watch(name):"), plain / "kim" / LESSON)
    _save(_edit(complete, "def predict_chain", "check_predict_chain(predict_chain);",
                "import os; os._exit(1)"), plain / "lee" / LESSON)
    scratch = {"cells": [_code_cell("print('my own notes')")], "metadata": {},
               "nbformat": 4, "nbformat_minor": 5}
    _save(scratch, plain / "jo" / "scratch.ipynb")
    # nbgrader's layout, and a renamed file: submitted/<student>/<assignment>/<notebook>
    nbgrader_layout = root / "course" / "submitted"
    _save(complete, nbgrader_layout / "hana" / "lesson02" / "my homework (final).ipynb")
    return [plain, root / "course" / "submitted"], [loops]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grade")
    class_paths, loop_paths = _make_class(root)
    feedback, runs, rows = root / "feedback", [], []
    for paths, timeout, out in ((class_paths, TIMEOUT, root / "gradebook.csv"),
                                (loop_paths, LOOPS_TIMEOUT, root / "loops.csv")):
        runs.append(subprocess.run([sys.executable, "-m", "minigrad.grade", *map(str, paths),
                                    "--out", str(out), "--timeout", str(timeout), "--feedback",
                                    str(feedback), "--jobs", "2"],
                                   capture_output=True, text=True, timeout=1800))
        rows += list(csv.DictReader(out.open(encoding="utf-8"))) if out.exists() else []
    return {"runs": runs, "rows": rows, "feedback": feedback}


def test_grading_finishes_with_exit_0(graded):
    for run in graded["runs"]:
        assert run.returncode == 0, run.stdout + run.stderr


def test_gradebook_columns_and_one_row_per_student_and_exercise(graded):
    rows = graded["rows"]
    assert rows and list(rows[0]) == ["student", "lesson", "exercise", "status", "points",
                                      "max_points", "message"]
    assert sorted({r["student"] for r in rows}) == sorted(EXPECTED)
    assert len(rows) == 3 * len(EXPECTED)
    assert {r["lesson"] for r in rows} == {"02"}
    max_points = {r["exercise"]: int(r["max_points"]) for r in rows}
    assert max_points == {"predict_chain": 1, "make_clip_hook": 2, "attach_nan_watch": 3}


@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_status_and_points(graded, student):
    statuses, points = EXPECTED[student]
    mine = [r for r in graded["rows"] if r["student"] == student]
    got = {r["exercise"]: r["status"] for r in mine}
    assert got == statuses, "\n".join(f"{r['exercise']}: {r['status']}: {r['message']}" for r in mine)
    assert sum(int(r["points"]) for r in mine) == points
    for r in mine:
        assert int(r["points"]) == (int(r["max_points"]) if r["status"] == "passed" else 0)
        assert r["message"]


def test_messages_say_what_happened(graded):
    by = {(r["student"], r["exercise"]): r["message"] for r in graded["rows"]}
    assert "not implemented yet" in by["bob", "make_clip_hook"]
    assert "wrong values" in by["carol", "make_clip_hook"]
    assert "still running" in by["dave", "attach_nan_watch"]
    assert "ran out of time" in by["ed", "make_clip_hook"]
    assert "ran out of time" in by["ed", "attach_nan_watch"]
    assert "SyntaxError" in by["fay", "predict_chain"]
    assert "not defined" in by["ivan", "make_clip_hook"]
    assert "not defined" in by["ivan", "attach_nan_watch"]
    assert "no notebook of lesson 02" in by["jo", "predict_chain"]
    assert "killed the kernel" in by["kim", "attach_nan_watch"]
    assert "killed the kernel" in by["lee", "predict_chain"]

def test_terminal_summary_and_warnings(graded):
    class_run, loops_run = graded["runs"]
    lines = class_run.stdout.splitlines() + loops_run.stdout.splitlines()
    for student, (_, points) in EXPECTED.items():
        line = next(row for row in lines if row.split() and row.split()[0] == student)
        assert line.split()[-1] == f"{points}/6", line
    assert "scratch.ipynb" in class_run.stderr and "not a minigrad lesson" in class_run.stderr
    assert "9/9 notebooks" in class_run.stderr and "2/2 notebooks" in loops_run.stderr   # bars at the end


def test_feedback_files(graded):
    folder = graded["feedback"]
    carol = (folder / "carol" / "02_tensor_hooks.md").read_text(encoding="utf-8")
    assert "4 / 6 points" in carol and "failed" in carol and "wrong values" in carol
    assert (folder / "hana" / "my homework (final).md").exists()
    assert not (folder / "jo").exists()      # nothing graded for jo


def _grade(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "minigrad.grade", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_usage_errors_exit_2(tmp_path):
    r = _grade(tmp_path / "nowhere")
    assert r.returncode == 2 and "no such file or folder" in r.stderr
    (tmp_path / "empty").mkdir()
    r = _grade(tmp_path / "empty")
    assert r.returncode == 2 and "no notebooks" in r.stderr
    (tmp_path / "notes.txt").write_text("hi")
    r = _grade(tmp_path / "notes.txt")
    assert r.returncode == 2 and "neither a notebook" in r.stderr
    _save({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
          tmp_path / "other" / "x.ipynb")
    r = _grade(tmp_path / "other", "--out", tmp_path / "gb.csv")
    assert r.returncode == 2 and "not a minigrad lesson" in r.stderr
    assert not (tmp_path / "gb.csv").exists()
