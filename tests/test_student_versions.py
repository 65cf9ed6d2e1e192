"""tools/student_versions.py: instructor notebooks -> lessons/student/ versions."""
import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.nbgraderformat import MetadataValidator
from nbformat import from_dict

from minigrad.exercises.registry import EXERCISES, Exercise

from exercise_support import prediction_answer, reveals

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "student_versions.py"

_spec = importlib.util.spec_from_file_location("student_versions", TOOL)
sv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sv)

SOLUTION_CELL = (
    "def double(x):\n"
    "    \"\"\"Return 2 * x.\"\"\"\n"
    "    ### BEGIN SOLUTION\n"
    "    secret_answer = 2 * x\n"
    "    return secret_answer\n"
    "    ### END SOLUTION\n"
    "\n"
    "class Doubler:\n"
    "    def __call__(self, t):\n"
    "        if t is not None:\n"
    "            ### BEGIN SOLUTION\n"
    "            return hidden_helper(t)\n"
    "            ### END SOLUTION\n"
    "        return None\n"
    "\n"
    "check(double(3), 6)"
)


def _notebook():
    return {
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {},
             "source": ["# Lesson\n", "### BEGIN SOLUTION in markdown is left alone\n"]},
            {"cell_type": "code", "id": "setup", "execution_count": 1, "metadata": {},
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ready\n"]}],
             "source": ["print('ready')"]},
            {"cell_type": "code", "id": "exercise", "execution_count": 2,
             "metadata": {"tags": ["exercise"]},
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["✅\n"]}],
             "source": SOLUTION_CELL.splitlines(keepends=True)},
            {"cell_type": "code", "id": "after", "execution_count": 3, "metadata": {},
             "outputs": [{"output_type": "execute_result", "execution_count": 3,
                          "data": {"text/plain": ["6"]}, "metadata": {}}],
             "source": "double(3)"},
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"},
                     "minigrad": {"lesson": "99"}},   # a lesson without registered exercises
        "nbformat": 4, "nbformat_minor": 5,
    }


def test_transform_replaces_solutions_with_indented_stubs():
    nb = _notebook()
    student = sv.student_notebook(nb)
    assert nb == _notebook(), "the instructor notebook must not be modified"

    src = "".join(student["cells"][2]["source"])
    assert src.count("### BEGIN SOLUTION") == 2 and src.count("### END SOLUTION") == 2
    assert "secret_answer" not in src and "hidden_helper" not in src
    lines = src.splitlines()
    assert '    raise NotImplementedError("your code here")' in lines
    assert '            raise NotImplementedError("your code here")' in lines
    # the markers stay around the stub: nbgrader's generate_assignment needs the region
    assert lines[:5] == ["def double(x):", '    """Return 2 * x."""', "    ### BEGIN SOLUTION",
                         '    raise NotImplementedError("your code here")', "    ### END SOLUTION"]
    assert lines[-1] == "check(double(3), 6)"
    compile(src, "<student cell>", "exec")  # still valid Python

    changed = student["cells"][2]
    assert changed["outputs"] == [] and changed["execution_count"] is None
    assert changed["id"] == "exercise"
    assert changed["metadata"] == {"tags": ["exercise"], "nbgrader": {
        "grade": False, "grade_id": "cell-exercise", "locked": False, "schema_version": 3,
        "solution": True}}
    # everything else kept as it was, and locked for nbgrader
    assert len(student["cells"]) == len(nb["cells"])      # no registered exercise: no test cell
    for i in (0, 1, 3):
        cell = copy.deepcopy(student["cells"][i])
        assert cell["metadata"].pop("nbgrader") == {
            "grade": False, "grade_id": f"cell-{cell['id']}", "locked": True, "schema_version": 3,
            "solution": False}
        assert cell == nb["cells"][i]
    assert student["metadata"] == nb["metadata"]


DOUBLE = Exercise("99", "double", ("double",), "check_double", "core")


def test_an_exercise_cell_gets_its_grade_id_and_an_autograder_test_cell():
    student = sv.student_notebook(_notebook(), exercises=[DOUBLE])
    cells = student["cells"]
    assert len(cells) == 5
    solution, test = cells[2], cells[3]
    assert solution["metadata"]["nbgrader"]["grade_id"] == "double"
    assert solution["metadata"]["nbgrader"]["solution"] is True
    assert test["metadata"]["nbgrader"] == {"grade": True, "grade_id": "test_double", "locked": True,
                                            "points": 2, "schema_version": 3, "solution": False}
    source = "".join(test["source"])
    assert source.endswith("autograde('99', 'double', globals())")
    assert "core, 2 points" in source
    compile(source, "<test cell>", "exec")
    assert test["outputs"] == [] and test["execution_count"] is None
    assert len({c["id"] for c in cells}) == len(cells)
    MetadataValidator().validate_nb(from_dict(student))    # what nbgrader checks


def test_solution_cells_and_registry_must_match():
    with pytest.raises(sv.MarkerError, match="no solution cell defines triple"):
        sv.student_notebook(_notebook(), exercises=[DOUBLE, Exercise("99", "triple", ("triple",),
                                                                     "check_triple", "core")])
    with pytest.raises(sv.MarkerError, match="exactly one exercise"):
        sv.student_notebook(_notebook(), exercises=[Exercise("99", "half", ("half",),
                                                             "check_half", "core")])


def test_lesson_metadata_is_required_and_must_match_the_file_name():
    nb = _notebook()
    assert sv._lesson_problem(Path("99_x.ipynb"), nb) is None
    assert "file name says '98'" in sv._lesson_problem(Path("98_x.ipynb"), nb)
    del nb["metadata"]["minigrad"]
    assert '"minigrad": {"lesson": "99"}' in sv._lesson_problem(Path("99_x.ipynb"), nb)


def test_real_student_versions_carry_the_registry_for_nbgrader():
    paths = sorted((ROOT / "lessons" / "student").glob("*.ipynb"))
    paths += sorted((ROOT / "lessons" / "zh" / "student").glob("*.ipynb"))     # the Chinese lessons'
    assert len(paths) > len(EXERCISES)
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        lesson = nb["metadata"]["minigrad"]["lesson"]
        assert path.name.startswith(lesson + "_")
        MetadataValidator().validate_nb(from_dict(nb))
        meta = [c["metadata"].get("nbgrader") for c in nb["cells"]]
        assert all(meta), f"{path.name}: every cell has nbgrader metadata"
        solutions = [m["grade_id"] for m in meta if m["solution"]]
        tests = {m["grade_id"]: m["points"] for m in meta if m["grade"]}
        exercises = EXERCISES.get(lesson, ())
        assert solutions == [e.name for e in exercises], path.name
        assert tests == {f"test_{e.name}": e.points for e in exercises}, path.name
        assert len({c["id"] for c in nb["cells"]}) == len(nb["cells"]), path.name


def test_stub_at_end_of_cell_without_trailing_newline():
    src = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"
    new, changed = sv.strip_solutions(src)
    assert changed and new == ('def f():\n    ### BEGIN SOLUTION\n'
                               '    raise NotImplementedError("your code here")\n    ### END SOLUTION')
    assert sv.strip_solutions("x = 1\n") == ("x = 1\n", False)


@pytest.mark.parametrize("src", [
    "### BEGIN SOLUTION\nx = 1\n",
    "x = 1\n### END SOLUTION\n",
    "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n",
])
def test_unbalanced_markers_are_errors(src):
    with pytest.raises(sv.MarkerError):
        sv.strip_solutions(src)


def _run(*args):
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True)


def test_write_then_check_on_a_temporary_lessons_folder(tmp_path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "99_x.ipynb").write_text(json.dumps(_notebook()))

    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 1 and "missing" in r.stdout

    r = _run("--lessons", str(lessons))
    assert r.returncode == 0, r.stdout + r.stderr
    student = json.loads((lessons / "student" / "99_x.ipynb").read_text())
    assert student == sv.student_notebook(_notebook())

    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 0, r.stdout + r.stderr

    nb = _notebook()
    nb["cells"][1]["source"] = ["print('changed')"]
    (lessons / "99_x.ipynb").write_text(json.dumps(nb))
    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 1 and "stale" in r.stdout
    # --check never writes
    assert json.loads((lessons / "student" / "99_x.ipynb").read_text()) == student

    (lessons / "student" / "99_gone.ipynb").write_text("{}")
    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 1 and "orphan" in r.stdout


def test_real_student_versions_are_up_to_date():
    r = _run("--check")
    assert r.returncode == 0, (
        "lessons/student/ is out of date; run  python tools/student_versions.py\n" + r.stdout + r.stderr
    )


def test_reveal_cells_and_cells_using_a_solution_lose_their_outputs():
    nb = _notebook()
    nb["cells"][1]["metadata"]["tags"] = ["reveal"]
    student = sv.student_notebook(nb, exercises=[DOUBLE])
    setup, after = student["cells"][1], student["cells"][4]
    assert setup["outputs"] == [] and setup["execution_count"] is None
    assert after["outputs"] == [] and after["execution_count"] is None   # ran double(3)
    assert setup["source"] == nb["cells"][1]["source"]
    # without the tag and without the exercise, the outputs stay
    student = sv.student_notebook(_notebook())
    assert student["cells"][1]["outputs"] == _notebook()["cells"][1]["outputs"]
    assert student["cells"][3]["outputs"] == _notebook()["cells"][3]["outputs"]


# --- no stored output of a student version gives away a prediction's answer ---------------

def test_reveals_reads_the_answer_in_its_printed_forms():
    assert reveals(([4.0, 4.0], [8.0, 8.0]), "y.grad = tensor([4., 4.]) | x.grad = tensor([8., 8.])")
    assert not reveals(([4.0, 4.0], [8.0, 8.0]), "y.grad = tensor([4., 4.]) | x.grad = tensor([4., 4.])")
    assert reveals(["y hook", "cb1"], "y's tensor hook: queueing\ncb1 | x.grad")
    assert not reveals(["cb1", "y hook"], "y's tensor hook: queueing\ncb1 | x.grad")
    assert reveals({"b": None, "a": [1.0]}, "a = [1.0] | b = None")


PREDICTIONS = [(e, path) for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
               for e in EXERCISES.get(path.name[:2], ()) if e.name.startswith("predict")]


@pytest.mark.parametrize("exercise, path", PREDICTIONS, ids=[e.name for e, _ in PREDICTIONS])
def test_no_student_output_shows_a_predictions_answer(exercise, path):
    answer = prediction_answer(path, exercise)

    def shown_in(notebook):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        return [index for index, cell in enumerate(cells) for output in cell.get("outputs", [])
                if reveals(answer, "".join(output.get("text", ""))
                           + "".join(output.get("data", {}).get("text/plain", "")))]

    assert shown_in(path), f"{path.name}: no output shows {answer!r}; the test would prove nothing"
    for folder in (ROOT / "lessons" / "student", ROOT / "lessons" / "zh" / "student"):
        student = folder / path.name
        if student.exists():           # a Chinese lesson may not be translated yet
            shown = shown_in(student)
            assert not shown, (f"{student.relative_to(ROOT)}: cell(s) {shown} show the answer to "
                               f"{exercise.name} ({answer!r}); tag the instructor cell 'reveal'")
