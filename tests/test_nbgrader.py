"""The student versions work with the real nbgrader (the test extra pins it).

A course directory is made in a temporary folder with lesson 02's student version as
the assignment's source; ``nbgrader generate_assignment`` makes the release, three
submissions are made from it (all answers from the instructor notebook, none, one),
``nbgrader autograde`` grades them, and the scores are read from nbgrader's database
through its Gradebook API. ``nbgrader generate_feedback`` then writes the feedback.
"""
import copy
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from minigrad.exercises.registry import lesson_exercises

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "02_tensor_hooks.ipynb"
ASSIGNMENT = "lesson02"
POINTS = {e.name: e.points for e in lesson_exercises("02")}
ANSWERED = {"alice": set(POINTS), "bob": set(), "carol": {"make_clip_hook"}}

# explicit group: one worker grades the class once (conftest.py's per-file groups are
# added after pytest-xdist has read the marks, so they do not keep a file together)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group('test_nbgrader')]


def _nbgrader(course, *args):
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout}\n{run.stderr}"
    return run


def _answer(release, instructor, exercises):
    """The release with the instructor's code in the solution cells of ``exercises``."""
    nb = copy.deepcopy(release)
    solutions = {c["id"]: c["source"] for c in instructor["cells"]}
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution") and meta["grade_id"] in exercises:
            cell["source"] = solutions[cell["id"]]
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'minigrad'\n"
        f"c.CourseDirectory.db_url = {db_url!r}\n"
        "c.Execute.timeout = 120\n")
    source = course / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    (source / NOTEBOOK).write_text((ROOT / "lessons" / "student" / NOTEBOOK).read_text(encoding="utf-8"),
                                   encoding="utf-8")
    _nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    release = json.loads((course / "release" / ASSIGNMENT / NOTEBOOK).read_text(encoding="utf-8"))
    instructor = json.loads((ROOT / "lessons" / NOTEBOOK).read_text(encoding="utf-8"))
    for student, exercises in ANSWERED.items():
        target = course / "submitted" / student / ASSIGNMENT / NOTEBOOK
        target.parent.mkdir(parents=True)
        target.write_text(json.dumps(_answer(release, instructor, exercises), indent=1), encoding="utf-8")
    _nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force")
    return {"root": course, "db_url": db_url, "release": release}


def test_release_keeps_the_exercise_cells(course):
    cells = {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
             for c in course["release"]["cells"] if "nbgrader" in c["metadata"]}
    for name in POINTS:
        # nbgrader replaced only the region between the markers, not the whole cell
        assert f"def {name}(" in cells[name] and "raise NotImplementedError" in cells[name]
        assert f"autograde('02', '{name}', globals())" in cells[f"test_{name}"]


def test_autograde_scores_in_the_gradebook(course):
    with Gradebook(course["db_url"]) as gb:
        for student, answered in ANSWERED.items():
            submission = gb.find_submission(ASSIGNMENT, student)
            assert submission.max_score == sum(POINTS.values())
            assert submission.score == sum(POINTS[e] for e in answered), student
            for name, points in POINTS.items():
                grade = gb.find_grade(f"test_{name}", NOTEBOOK[:-len(".ipynb")], ASSIGNMENT, student)
                assert grade.max_score == points
                assert grade.score == (points if name in answered else 0), (student, name)


def test_failing_test_cells_say_why(course):
    graded = json.loads((course["root"] / "autograded" / "carol" / ASSIGNMENT / NOTEBOOK)
                        .read_text(encoding="utf-8"))
    outputs = {c["metadata"]["nbgrader"]["grade_id"]: c.get("outputs", [])
               for c in graded["cells"] if c["metadata"].get("nbgrader", {}).get("grade")}
    errors = [o for o in outputs["test_attach_nan_watch"] if o["output_type"] == "error"]
    assert errors and errors[0]["ename"] == "AssertionError"
    assert "not implemented" in errors[0]["evalue"]
    assert not any(o["output_type"] == "error" for o in outputs["test_make_clip_hook"])


def test_generate_feedback(course):
    _nbgrader(course["root"], "generate_feedback", ASSIGNMENT)
    for student, answered in ANSWERED.items():
        html = (course["root"] / "feedback" / student / ASSIGNMENT / "02_tensor_hooks.html").read_text(
            encoding="utf-8")
        total = sum(POINTS[e] for e in answered)
        assert f"Score: {total:.1f} / {sum(POINTS.values()):.1f}" in html


def test_minigrad_grade_on_the_course_folder_grades_each_student_once(course, tmp_path):
    """The course folder as it is after autograde (source/, release/, submitted/,
    autograded/, gradebook.db): only submitted/ is graded, one notebook per student."""
    out = tmp_path / "gradebook.csv"
    run = subprocess.run([sys.executable, "-m", "minigrad.grade", str(course["root"]), "--out", str(out),
                          "--timeout", "600", "--jobs", "2"], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert sorted({r["student"] for r in rows}) == sorted(ANSWERED)
    for student, answered in ANSWERED.items():
        mine = {r["exercise"]: int(r["points"]) for r in rows if r["student"] == student}
        assert mine == {name: points if name in answered else 0 for name, points in POINTS.items()}, student
    assert "several notebooks" not in run.stderr
    root = course["root"]
    assert f"{root} is an nbgrader course: grading the notebooks in {root / 'submitted'}" in run.stderr
