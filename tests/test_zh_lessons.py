"""The course in Simplified Chinese (lessons/zh/), kept in step with the English one.

* Each Chinese lesson has the English lesson's cells, in order, with the same code, cell
  metadata, execution counts and outputs; only the markdown differs (tools/zh_sync.py
  says what is compared and what is left out, and why).
* The translated markdown uses the terms of docs/zh/glossary.md, cell by cell, and none
  of the wordings the glossary rules out; its relative links lead somewhere.
* The widgets of a Chinese lesson speak Chinese (the widget state nbconvert stored).
* The student versions (lessons/zh/student/) are generated like the English ones and
  graded by the same grader.
* tools/zh_sync.py itself: rebuild keeps translations by cell id, marks changed English
  text as stale, and check catches a change of code or output.
"""
import csv
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.exercises.registry import EXERCISES
from minigrad.viz import _language

ROOT = Path(__file__).resolve().parents[1]
ZH = ROOT / "lessons" / "zh"
GLOSSARY = ROOT / "docs" / "zh" / "glossary.md"
TOOL = ROOT / "tools" / "zh_sync.py"

_spec = importlib.util.spec_from_file_location("zh_sync", TOOL)
zh_sync = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(zh_sync)

ENGLISH = zh_sync.english_lessons()
CHINESE = zh_sync.chinese_lessons()
# English lessons whose Chinese translation is still to come (work in progress, as in
# tests/test_coverage_inventory.py): remove a lesson from here when lessons/zh/ gets it.
PENDING = {"06", "07", "08", "09", "10", "11"}


def _text(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


# --- every lesson, in step ---------------------------------------------------------------------
def test_every_english_lesson_has_its_chinese_lesson_or_is_pending():
    missing = sorted(set(ENGLISH) - set(CHINESE) - PENDING)
    assert not missing, (f"no Chinese lesson for {missing}: python tools/zh_sync.py rebuild "
                         f"{' '.join(missing)}, translate it, or add it to PENDING")
    done = sorted(PENDING & set(CHINESE))
    assert not done, f"lessons/zh/ has {done}: remove them from PENDING"
    assert not set(CHINESE) - set(ENGLISH), "a Chinese lesson without its English lesson"
    assert {"00", "01"} <= set(CHINESE)


@pytest.mark.parametrize("number", sorted(CHINESE))
def test_the_chinese_lesson_has_the_english_code_and_outputs(number):
    english, chinese = zh_sync.load(ENGLISH[number]), zh_sync.load(CHINESE[number])
    assert CHINESE[number].name == ENGLISH[number].name
    problems = zh_sync.differences(english, chinese)
    assert not problems, (f"lessons/zh/{CHINESE[number].name} is out of step with the English "
                          f"lesson (python tools/zh_sync.py rebuild {number}):\n  " + "\n  ".join(problems))


@pytest.mark.parametrize("number", sorted(CHINESE))
def test_the_chinese_lesson_is_really_chinese(number):
    """Every markdown cell is translated (it records the English text it translates) and
    reads as Chinese; the lesson keeps the English lesson's headings' numbering."""
    english, chinese = zh_sync.load(ENGLISH[number]), zh_sync.load(CHINESE[number])
    states = zh_sync.translation_state(english, chinese)
    assert set(states.values()) <= {"translated", "stale"}, \
        f"untranslated cells: {[i for i, s in states.items() if s == 'untranslated']}"
    for cell in chinese["cells"]:
        if cell["cell_type"] == "markdown":
            prose = _prose(_text(cell))
            han = len(re.findall(r"[\u4e00-\u9fff]", prose))
            latin = len(re.findall(r"[A-Za-z]", prose))
            assert han > latin / 4, f"cell {cell['id']} reads as English: {prose[:200]!r}"
    title = _text(chinese["cells"][0]).splitlines()[0]
    assert title.startswith(f"# {number} · ")


def test_lesson_00_says_what_stays_english():
    markdown = "".join(_text(c) for c in zh_sync.load(CHINESE["00"])["cells"] if c["cell_type"] == "markdown")
    assert "检查给出的说明" in markdown and "保持英文" in markdown
    assert "](../../docs/zh/glossary.md)" in markdown
    glossary = GLOSSARY.read_text(encoding="utf-8")
    assert "练习的检查信息" in glossary and "是英文" in glossary


# --- the glossary -------------------------------------------------------------------------------
def _prose(markdown):
    """The words of a markdown text a reader reads as prose: no fenced or inline code, no
    link targets, no HTML tags."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"<[^>]+>", " ", text)


def glossary():
    """[(English forms, Chinese forms, ruled-out Chinese wordings)] from the glossary's table."""
    rows = []
    table = GLOSSARY.read_text(encoding="utf-8").split("## 术语", 1)[1]
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("English", "") or set(cells[0]) <= {"-"}:
            continue
        english = [e.strip() for e in cells[0].split(" / ")]
        chinese = [c.strip() for c in cells[1].split(" / ")]
        avoid = [a.strip() for a in re.split(r"[、,，]", cells[2]) if a.strip()]
        rows.append((english, chinese, avoid))
    return rows


def _english_pattern(forms):
    alternatives = []
    for form in forms:
        words = [re.escape(w) for w in re.split(r"[ -]", form)]
        alternatives.append(r"[\s-]+".join(words) + ("" if form.endswith(")") else r"(?:s|es)?"))
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])", re.I)


def test_the_glossary_covers_the_course_and_says_what_stays_english():
    rows = glossary()
    by_english = {e: c for english, c, _ in rows for e in english}
    for term, chinese in [("hook", "钩子"), ("leaf tensor", "叶子张量"), ("ready queue", "就绪队列"),
                          ("input buffer", "输入缓冲区"), ("sequence number", "序列号"),
                          ("engine", "引擎"), ("node", "节点"), ("gradient", "梯度"),
                          ("final callback", "最终回调"), ("pre-hook", "前置钩子")]:
        assert chinese in by_english.get(term, []), f"the glossary has no {term} → {chinese}"
    assert len(rows) >= 50
    assert len({c[0] for _, c, _ in rows}) == len(rows), "two terms share a Chinese term"


def _glossary_patterns():
    """(English pattern, Chinese terms, ruled-out wordings) for each glossary row, the rows
    with the longest English form first (see _missing_terms)."""
    rows = sorted(glossary(), key=lambda row: -max(len(form) for form in row[0]))
    return [(_english_pattern(e), c, a) for e, c, a in rows]


def _missing_terms(english, chinese, patterns):
    """[(the English words, their Chinese terms)] for each glossary term the English text uses
    in its prose whose Chinese term the Chinese text lacks. A word inside a longer term
    counts for that term only: "root" in "square root", "hook" in "tensor hook"."""
    prose, missing = _prose(english), []
    for pattern, terms, _ in patterns:
        found = pattern.search(prose)
        if found:
            if not any(term in chinese for term in terms):
                missing.append((found.group(0), terms))
            prose = pattern.sub(" ", prose)
    return missing


@pytest.mark.parametrize("number", sorted(CHINESE))
def test_the_translation_uses_the_glossarys_terms(number):
    """For each translated markdown cell: every glossary term that the English text it
    translates uses (in prose) has its Chinese term in the cell, and no ruled-out wording
    appears anywhere."""
    patterns = _glossary_patterns()
    missing, ruled_out = [], []
    for cell in zh_sync.load(CHINESE[number])["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        english = cell.get("metadata", {}).get("translation", {}).get("en")
        chinese = _prose(_text(cell))
        if english is not None:
            missing += [f"cell {cell['id']}: {words!r} → {' / '.join(terms)}"
                        for words, terms in _missing_terms(english, chinese, patterns)]
        ruled_out += [f"cell {cell['id']}: {word}" for _, _, avoid in patterns for word in avoid
                      if word in chinese]
    assert not missing, "terms not translated as the glossary says:\n  " + "\n  ".join(missing)
    assert not ruled_out, "wordings the glossary rules out:\n  " + "\n  ".join(ruled_out)


def test_the_glossary_check_can_fail():
    patterns = _glossary_patterns()

    def misses(english, chinese):
        return [terms for _, terms in _missing_terms(english, chinese, patterns)]
    assert ["就绪队列"] in misses("The ready queue holds leaf tensors.", "准备队列里放着叶张量。")
    assert ["叶子张量"] in misses("The ready queue holds leaf tensors.", "准备队列里放着叶张量。")
    assert not misses("The ready queue holds leaf tensors.", "就绪队列里放着叶子张量。")
    # code is not prose: `register_hook` asks for no 钩子
    assert not misses("Call `register_hook`.", "调用 `register_hook`。")
    assert ["钩子"] in misses("Several hooks, and a pre-hook.", "几个回调。")
    # a word inside a longer term is that term: the square root is no root node
    assert not misses("Take the square root.", "开平方。")
    assert ["根节点"] in misses("The root runs first, then the square root.", "它最先运行，然后开平方。")


@pytest.mark.parametrize("number", sorted(CHINESE))
def test_the_links_of_a_chinese_lesson_lead_somewhere(number):
    path = CHINESE[number]
    for cell in zh_sync.load(path)["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for target in re.findall(r"\]\(([^)#\s]+)", _text(cell)):
            if re.match(r"[a-z]+://", target):
                continue
            assert (path.parent / target).exists(), f"cell {cell['id']}: the link {target} leads nowhere"


# --- widgets speak Chinese ---------------------------------------------------------------------
@pytest.mark.parametrize("number", sorted(CHINESE))
def test_the_stored_widgets_of_a_chinese_lesson_speak_chinese(number):
    """The widget state nbconvert stored when it ran the lesson in lessons/zh/: every label
    the package translates is Chinese, none is left English."""
    def labels(path):
        state = zh_sync.load(path)["metadata"].get("widgets", {}).get(
            "application/vnd.jupyter.widget-state+json", {}).get("state", {})
        return [m["state"]["description"] for m in state.values() if m["state"].get("description")]
    english, chinese = labels(ENGLISH[number]), labels(CHINESE[number])
    assert sorted(_language._ZH.get(label, label) for label in english) == sorted(chinese)
    untranslated = [label for label in chinese if not re.search(r"[\u4e00-\u9fff]", label)]
    assert not untranslated, (f"widget labels left in English: {untranslated}: show the controls "
                              "with minigrad.viz.interact and add the labels to minigrad/viz/_language.py")
    if number in ("00", "01"):
        assert chinese, f"lesson {number} shows a widget: its labels should be there"


# --- student versions and the grader -----------------------------------------------------------
@pytest.mark.parametrize("number", sorted(CHINESE))
def test_the_chinese_student_version_is_the_english_one_with_chinese_text(number):
    student_en = zh_sync.load(ROOT / "lessons" / "student" / ENGLISH[number].name)
    student_zh = zh_sync.load(ZH / "student" / ENGLISH[number].name)
    assert [(c["cell_type"], _text(c) if c["cell_type"] == "code" else None,
             c["metadata"].get("nbgrader")) for c in student_zh["cells"]] == \
           [(c["cell_type"], _text(c) if c["cell_type"] == "code" else None,
             c["metadata"].get("nbgrader")) for c in student_en["cells"]]
    assert student_zh["metadata"]["minigrad"] == {"lesson": number}


@pytest.mark.slow
def test_the_grader_grades_chinese_student_notebooks(tmp_path):
    name = ENGLISH["00"].name
    submissions = tmp_path / "submissions"
    (submissions / "mei").mkdir(parents=True)
    (submissions / "lin").mkdir(parents=True)
    shutil.copy(ZH / name, submissions / "mei" / name)              # every answer written
    shutil.copy(ZH / "student" / name, submissions / "lin" / name)  # handed in untouched
    out = tmp_path / "gradebook.csv"
    done = subprocess.run([sys.executable, "-m", "minigrad.grade", str(submissions), "--out", str(out),
                           "--timeout", "120"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    exercises = [e.name for e in EXERCISES["00"]]
    got = {(r["student"], r["exercise"]): r["status"] for r in rows}
    assert got == {**{("mei", e): "passed" for e in exercises},
                   **{("lin", e): "not implemented" for e in exercises}}
    assert sum(int(r["points"]) for r in rows if r["student"] == "mei") == \
        sum(e.points for e in EXERCISES["00"])


# --- the tool -------------------------------------------------------------------------------------
def _notebook(cells):
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}, "minigrad": {"lesson": "99"}}}


def _md(cell_id, text, translated_from=None):
    cell = {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}
    if translated_from is not None:
        cell["metadata"]["translation"] = {"en": translated_from}
    return cell


def _code(cell_id, source, outputs=(), count=1):
    return {"cell_type": "code", "id": cell_id, "metadata": {}, "source": source,
            "execution_count": count, "outputs": list(outputs)}


def _stream(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def test_rebuild_keeps_translations_by_id_and_marks_changes():
    old_english = _notebook([_md("a", "Hooks run."), _code("c", "print(1)", [_stream("1\n")]),
                             _md("b", "The ready queue.")])
    chinese = _notebook([_md("a", "钩子运行。", "Hooks run."), _code("c", "print(1)", [_stream("1\n")]),
                         _md("b", "就绪队列。", "The ready queue.")])
    assert zh_sync.translation_state(old_english, chinese) == {"a": "translated", "b": "translated"}
    # the English lesson changes: b's text, a new cell n, the code, a's cell removed
    english = _notebook([_code("c", "print(2)", [_stream("2\n")]), _md("n", "A new cell."),
                         _md("b", "The ready queue, popped.")])
    rebuilt = zh_sync.rebuilt(english, chinese)
    assert [(c["id"], _text(c)) for c in rebuilt["cells"]] == [
        ("c", "print(2)"), ("n", "A new cell."), ("b", "就绪队列。")]
    assert rebuilt["cells"][0]["outputs"] == [] and rebuilt["cells"][0]["execution_count"] is None
    assert zh_sync.translation_state(english, rebuilt) == {"n": "untranslated", "b": "stale"}
    assert "+The ready queue, popped." in zh_sync.stale_diff(english, rebuilt, "b")
    # after translating, mark records the English text: everything is current again
    rebuilt["cells"][1]["source"] = "一个新单元格。"
    rebuilt["cells"][2]["source"] = "就绪队列，弹出。"
    assert zh_sync.mark(english, rebuilt, ["n", "b"]) == ["n", "b"]
    assert zh_sync.translation_state(english, rebuilt) == {"n": "translated", "b": "translated"}
    with pytest.raises(zh_sync.UsageError, match="no markdown cell with the id"):
        zh_sync.mark(english, rebuilt, ["c"])


def test_differences_catch_code_and_outputs_and_leave_out_what_changes_by_itself():
    widget = {"output_type": "display_data", "metadata": {},
              "data": {"text/plain": "interactive(...)", zh_sync.WIDGET_VIEW: {"model_id": "1"}}}
    figure = {"output_type": "display_data", "metadata": {},
              "data": {"text/plain": "<Figure size 640x480 with 1 Axes>", "image/png": "AAAA"}}
    node = _stream("<MulBackward0 object at 0x7f00aa>\n")
    english = _notebook([_md("m", "Text."), _code("a", "x", [node, figure]),
                         _code("w", "interact(f)", [widget]),
                         _code("i", "# NBVAL_IGNORE_OUTPUT\nnow()", [_stream("12:00\n")])])
    chinese = json.loads(json.dumps(english))
    chinese["cells"][0]["source"] = "正文。"
    chinese["cells"][1]["outputs"][0] = _stream("<MulBackward0 object at 0x7f11bb>\n")
    chinese["cells"][1]["outputs"][1]["data"]["image/png"] = "BBBB"
    chinese["cells"][1]["metadata"]["execution"] = {"iopub.status.idle": "later"}
    chinese["cells"][2]["outputs"][0]["data"][zh_sync.WIDGET_VIEW] = {"model_id": "2"}
    chinese["cells"][3]["outputs"] = [_stream("12:01\n")]
    assert zh_sync.differences(english, chinese) == []
    # a stream split in two is the same stream
    split = json.loads(json.dumps(chinese))
    split["cells"][1]["outputs"][0:1] = [_stream("<MulBackward0 "), _stream("object at 0x7f11bb>\n")]
    assert zh_sync.differences(english, split) == []
    for change, says in [
            (lambda nb: nb["cells"][1].update(source="y"), "cell 1: the code differs"),
            (lambda nb: nb["cells"][1]["outputs"].pop(), "cell 1: the outputs differ"),
            (lambda nb: nb["cells"][1]["outputs"].__setitem__(0, _stream("3\n")), "output 1 is"),
            (lambda nb: nb["cells"][1].update(execution_count=7), "execution count 7"),
            (lambda nb: nb["cells"][1]["metadata"].update(tags=["raises-exception"]), "metadata (tags)"),
            (lambda nb: nb["cells"].reverse(), "cells differ"),
            (lambda nb: nb["metadata"].update(minigrad={"lesson": "98"}), "notebook metadata")]:
        changed = json.loads(json.dumps(chinese))
        change(changed)
        found = zh_sync.differences(english, changed)
        assert any(says in problem for problem in found), (says, found)


def _run_tool(*args):
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True)


def test_the_tool_checks_its_arguments_and_the_real_lessons():
    done = _run_tool("rebuild", "99")
    assert done.returncode == 2 and "no English lesson 99" in done.stderr
    done = _run_tool("mark", "1")
    assert done.returncode == 2 and "two-digit" in done.stderr
    done = _run_tool("check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lessons/zh/00_start_here.ipynb: in step with the English" in done.stdout
    not_started = sorted(set(ENGLISH) - set(CHINESE))[:1]      # none once every lesson is translated
    done = _run_tool("status", "00", *not_started)
    assert done.returncode == 0 and "00  " in done.stdout
    assert all(f"{number}  not started" in done.stdout for number in not_started)
