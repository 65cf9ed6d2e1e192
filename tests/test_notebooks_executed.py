"""Every committed notebook in lessons/ and spec/ must be executed (see tools/notebook_guard.py).

nbval skips the comparison of any cell whose stored execution count is null, so an
unexecuted or stripped notebook would pass `pytest --nbval` while its outputs are wrong.
"""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_spec = importlib.util.spec_from_file_location("notebook_guard", ROOT / "tools" / "notebook_guard.py")
guard = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(guard)

NOTEBOOKS = guard.find_notebooks(ROOT)


@pytest.mark.parametrize(
    "notebook",
    NOTEBOOKS or [None],
    ids=[str(nb.relative_to(ROOT)) for nb in NOTEBOOKS] or ["no-notebooks-yet"],
)
def test_notebook_is_executed(notebook):
    if notebook is None:
        pytest.skip("no notebooks in lessons/ or spec/ yet")
    problems = guard.check_notebook(notebook)
    assert not problems, f"{notebook.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


# --- the guard itself, on small synthetic notebooks -----------------------------------


def _cell(source, count=None, outputs=(), tags=()):
    cell = {"cell_type": "code", "execution_count": count, "metadata": {},
            "outputs": list(outputs), "source": source}
    if tags:
        cell["metadata"]["tags"] = list(tags)
    return cell


def _write(tmp_path, cells, kernel="python3"):
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": kernel, "display_name": "Python 3",
                                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    return path


def _error(ename="ValueError", evalue="boom"):
    return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": []}


def test_guard_accepts_a_clean_notebook(tmp_path):
    path = _write(tmp_path, [
        _cell("x = 1", 1),
        _cell("", None),  # empty cells may stay unexecuted
        {"cell_type": "markdown", "metadata": {}, "source": "text"},
        _cell("x", 3, [{"output_type": "execute_result", "execution_count": 3,
                        "data": {"text/plain": "1"}, "metadata": {}}]),
        _cell("raise ValueError('boom')", 4, [_error()], tags=["raises-exception"]),
    ])
    assert guard.check_notebook(path) == []


@pytest.mark.parametrize("cells, kernel, expected", [
    ([_cell("x = 1", None)], "python3", "no execution count"),
    ([_cell("x = 1", 2), _cell("y = 2", 1)], "python3", "execution count 1 after 2"),
    ([_cell("x = 1", 1)], "minigrad-venv", "kernelspec.name"),
    ([_cell("1/0", 1, [_error("ZeroDivisionError", "division by zero")])], "python3",
     "stored error ZeroDivisionError"),
    ([_cell("f", 1, [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                      "data": {"text/plain": "<function f at 0x7f3a2b1c4d60>"}}])], "python3",
     "memory address 0x7f3a2b1c4d60"),
    ([_cell("print(f)", 1, [{"output_type": "stream", "name": "stdout",
                             "text": ["id 0xdeadbeef12\n"]}])], "python3",
     "memory address"),
    ([_cell("1/0", 1, [_error("ZeroDivisionError", "division by zero")
                       | {"traceback": [f"line {i}" for i in range(20)]}], tags=["raises-exception"])],
     "python3", "20-line traceback"),
    ([_cell("f", 1, [{"output_type": "stream", "name": "stderr",
                      "text": ['File "/Users/someone/minigrad/x.py", line 3\n']}])], "python3",
     "a path of this machine"),
    ([_cell("f", 1, [{"output_type": "stream", "name": "stdout",
                      "text": ["step\n" * 61]}])], "python3", "61 lines of stream stdout"),
])

def test_guard_reports_problems(tmp_path, cells, kernel, expected):
    problems = guard.check_notebook(_write(tmp_path, cells, kernel))
    assert any(expected in p for p in problems), problems


def test_guard_accepts_pytorch_style_object_reprs(tmp_path):
    """``<MulBackward0 object at 0x...>`` is what PyTorch prints; the sanitizers normalise it."""
    output = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
              "data": {"text/plain": "<MulBackward0 object at 0x7f3a2b1c4d60>"}}
    path = _write(tmp_path, [_cell("y.grad_fn", 1, [output])], "python3")
    assert guard.check_notebook(path) == []


def test_guard_skips_student_versions(tmp_path):
    (tmp_path / "lessons" / "student").mkdir(parents=True)
    (tmp_path / "spec").mkdir()
    for rel in ["lessons/01_a.ipynb", "lessons/student/01_a.ipynb", "spec/s.ipynb",
                "lessons/.ipynb_checkpoints/01_a-checkpoint.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = [p.relative_to(tmp_path).as_posix() for p in guard.find_notebooks(tmp_path)]
    assert found == ["lessons/01_a.ipynb", "spec/s.ipynb"]
