"""tools/student_versions.py: instructor notebooks -> lessons/student/ versions."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

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
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def test_transform_replaces_solutions_with_indented_stubs():
    nb = _notebook()
    student = sv.student_notebook(nb)
    assert nb == _notebook(), "the instructor notebook must not be modified"

    src = "".join(student["cells"][2]["source"])
    assert "BEGIN SOLUTION" not in src and "END SOLUTION" not in src
    assert "secret_answer" not in src and "hidden_helper" not in src
    lines = src.splitlines()
    assert '    raise NotImplementedError("your code here")' in lines
    assert '            raise NotImplementedError("your code here")' in lines
    assert lines[:3] == ["def double(x):", '    """Return 2 * x."""',
                         '    raise NotImplementedError("your code here")']
    assert lines[-1] == "check(double(3), 6)"
    compile(src, "<student cell>", "exec")  # still valid Python

    changed = student["cells"][2]
    assert changed["outputs"] == [] and changed["execution_count"] is None
    assert changed["metadata"] == {"tags": ["exercise"]} and changed["id"] == "exercise"
    # everything else kept as it was
    for i in (0, 1, 3):
        assert student["cells"][i] == nb["cells"][i]
    assert student["metadata"] == nb["metadata"]


def test_stub_at_end_of_cell_without_trailing_newline():
    src = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"
    new, changed = sv.strip_solutions(src)
    assert changed and new == 'def f():\n    raise NotImplementedError("your code here")'
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
    (lessons / "01_x.ipynb").write_text(json.dumps(_notebook()))

    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 1 and "missing" in r.stdout

    r = _run("--lessons", str(lessons))
    assert r.returncode == 0, r.stdout + r.stderr
    student = json.loads((lessons / "student" / "01_x.ipynb").read_text())
    assert student == sv.student_notebook(_notebook())

    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 0, r.stdout + r.stderr

    nb = _notebook()
    nb["cells"][1]["source"] = ["print('changed')"]
    (lessons / "01_x.ipynb").write_text(json.dumps(nb))
    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 1 and "stale" in r.stdout
    # --check never writes
    assert json.loads((lessons / "student" / "01_x.ipynb").read_text()) == student

    (lessons / "student" / "99_gone.ipynb").write_text("{}")
    r = _run("--check", "--lessons", str(lessons))
    assert r.returncode == 1 and "orphan" in r.stdout


def test_real_student_versions_are_up_to_date():
    r = _run("--check")
    assert r.returncode == 0, (
        "lessons/student/ is out of date; run  python tools/student_versions.py\n" + r.stdout + r.stderr
    )
