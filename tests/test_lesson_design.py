"""The course's shape, checked on the committed notebooks (no kernel needed):

* every lesson opens with ``# NN · Title``, its expected time and level, and "What you
  will be able to do", has a
  ``## Summary`` and ends with a **Next:** link;
* every lesson has a warm-up, a core and a stretch exercise, and each exercise's heading
  names the level the registry gives it and offers a hint and a solution sketch in
  collapsible ``<details>`` blocks; only a warm-up's sketch may be code;
* at most one exercise in five has its solution on the page: the lines of an instructor
  solution must not be readable in the student version of the notebook (which has every
  solution region replaced by a stub);
* every instructor solution passes its check, run in this process on the notebook's
  code (its imports and definitions, ``exercise_support.instructor_definitions``): the
  ✅ a solution cell saved is what a learner reads, not a proof.
"""
import json
import re
from pathlib import Path

import pytest

from minigrad.exercises.registry import EXERCISES

from exercise_support import instructor_definitions

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted(ROOT.glob("lessons/[0-9][0-9]_*.ipynb"))
BEGIN = re.compile(r"^\s*#+\s*BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*#+\s*END SOLUTION\s*$")
ON_PAGE = 0.5          # a solution is "on the page" when half its lines are
MIN_LINE = 12          # shorter lines (``return x``, ``else:``) say nothing


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _source(cell):
    return "".join(cell["source"])


def _markdown(path):
    return [_source(c) for c in _cells(path) if c["cell_type"] == "markdown"]


def _norm(line):
    return re.sub(r"\s+", " ", line.strip())


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_opens_summarises_and_links_on(path):
    number = path.name[:2]
    markdown = _markdown(path)
    title = markdown[0].splitlines()[0]
    assert re.match(rf"# {number} · \S", title), f"{path.name}: title {title!r} is not '# {number} · Title'"
    assert re.search(r"^\*\*Time:\*\* about \d+ minutes.* · \*\*Level:\*\* (beginner|intermediate|advanced)",
                     markdown[0], re.M), f"{path.name}: the first cell does not give the time and level"
    assert "**What you will be able to do after this lesson**" in markdown[0], \
        f"{path.name}: the first cell does not say what the learner will be able to do"
    assert any(line == "## Summary" for m in markdown for line in m.splitlines()), \
        f"{path.name}: no '## Summary' heading"
    last = markdown[-1]
    assert re.search(r"\*\*Next:\*\*.*\]\(", last, re.S), \
        f"{path.name}: the last markdown cell has no '**Next:** [..](..)' link"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_three_levels_each_with_hint_and_sketch(path):
    lesson = json.loads(path.read_text())["metadata"]["minigrad"]["lesson"]
    levels = [e.level for e in EXERCISES[lesson]]
    assert sorted(levels) == ["core", "stretch", "warm-up"], \
        f"lesson {lesson} has exercises at levels {levels}; it needs one warm-up, one core, one stretch"
    markdown = _markdown(path)
    headings = [(m, line) for m in markdown for line in m.splitlines() if line.startswith("### Exercise")]
    assert [re.search(r"\((warm-up|core|stretch)\)", h).group(1) for _, h in headings] == levels, \
        f"{path.name}: exercise headings {[h for _, h in headings]} do not name the levels {levels}"
    for (cell, heading), level in zip(headings, levels):
        hint = cell.find("<summary>Hint</summary>")
        sketch = cell.find("<summary>Solution sketch</summary>")
        assert 0 <= hint < sketch, \
            f"{path.name}: {heading!r} needs a Hint, then a Solution sketch, in <details>"
        if level != "warm-up":       # a code sketch of a core or stretch answer is the answer
            body = cell[sketch:cell.find("</details>", sketch)]
            assert "```" not in body, f"{path.name}: {heading!r} has a code sketch; say it in words"


def _solutions(path):
    """The code lines inside each BEGIN/END SOLUTION region of a notebook."""
    for cell in _cells(path):
        if cell["cell_type"] != "code":
            continue
        lines, inside = [], False
        for line in _source(cell).splitlines():
            if BEGIN.match(line):
                inside = True
            elif END.match(line):
                inside = False
            elif inside:
                lines.append(line)
        if lines:
            yield lines


def solution_on_page(solution_lines, page_lines):
    """Whether half the telling lines of a solution can be read on the page."""
    telling = [_norm(line) for line in solution_lines
               if len(_norm(line)) >= MIN_LINE and not _norm(line).startswith("#")]
    shown = {_norm(line) for line in page_lines}
    return bool(telling) and sum(line in shown for line in telling) / len(telling) >= ON_PAGE


def test_solution_on_page_detects_a_copy():
    solution = ["def clip(g):", "    norm = g.norm()", "    return g * (1.0 / norm)"]
    assert solution_on_page(solution, ["x = 1", "    norm = g.norm()", "return g * (1.0 / norm)"])
    assert not solution_on_page(solution, ["norm = g.abs().max()"])


def test_at_most_one_exercise_in_five_has_its_solution_on_the_page():
    total, on_page = 0, []
    for path in LESSONS:
        student = ROOT / "lessons" / "student" / path.name
        page = [line for cell in _cells(student) for line in _source(cell).splitlines()]
        for lines in _solutions(path):
            total += 1
            if solution_on_page(lines, page):
                on_page.append(f"{path.name}: {lines[0].strip()!r}...")
    assert total >= 30
    assert len(on_page) * 5 <= total, f"{len(on_page)} of {total} solutions are on the page: {on_page}"


def _saved_verdicts(path):
    """What each solution cell printed when the notebook was last run."""
    cells = [c for c in _cells(path)
             if c["cell_type"] == "code" and any(BEGIN.match(line) for line in _source(c).splitlines())]
    return ["".join("".join(o.get("text", "")) for o in cell["outputs"]) for cell in cells]


def _verdicts_now(path):
    """Each exercise's check, run in this process on the solution the notebook holds now."""
    lesson = json.loads(path.read_text())["metadata"]["minigrad"]["lesson"]
    namespace = instructor_definitions(path)
    return {exercise.name: exercise.load_check()(*(namespace[name] for name in exercise.objects))
            for exercise in EXERCISES[lesson]}


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_solution_cell_shows_a_pass(path):
    """The committed run of each solution cell printed ✅ (what a learner reads)."""
    printed = _saved_verdicts(path)
    assert len(printed) == 3
    for text in printed:
        assert text.startswith("✅"), f"{path.name}: a solution cell printed {text!r}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:2])
def test_every_instructor_solution_passes_its_own_check(path):
    """Each solution passes its check when run now: a saved ✅ proves nothing about a
    solution edited after the last run, or a check tightened since (lax nbval compares no
    solution cell's output either)."""
    for name, result in _verdicts_now(path).items():
        assert result.status == "passed", f"{path.name}: {name}: {result!r}"


def test_a_wrong_solution_under_a_saved_pass_is_caught(tmp_path):
    """Lesson 03's core solution with the mean left out (``p.sub_(lr * p.grad)``), its
    cell's saved ✅ kept: the saved outputs still pass, the check run now does not."""
    lesson = ROOT / "lessons" / "03_retain_grad_and_post_accumulate.ipynb"
    notebook = json.loads(lesson.read_text())
    right = "p.sub_(lr * p.grad / k)"
    cell = next(c for c in notebook["cells"] if c["cell_type"] == "code" and right in _source(c))
    cell["source"] = _source(cell).replace(right, "p.sub_(lr * p.grad)")
    wrong = tmp_path / lesson.name
    wrong.write_text(json.dumps(notebook))
    assert all(text.startswith("✅") for text in _saved_verdicts(wrong))
    verdicts = _verdicts_now(wrong)
    assert verdicts["attach_sgd_every"].status == "failed"
    assert verdicts["predict_second_backward"].status == verdicts["my_retain_grad"].status == "passed"
