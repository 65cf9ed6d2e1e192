#!/usr/bin/env python3
"""Keep the Chinese lessons (lessons/zh/) in step with the English ones (lessons/).

A Chinese lesson is the English notebook of the same file name with its markdown
translated: the same cells in the same order (a cell keeps its English cell's id), the
same code cells, and, once both are executed, the same outputs. The widgets' labels
follow the notebook's folder (minigrad/viz/_language.py), so the code needs no change.

Each translated markdown cell records the English text it translates, in its metadata
(``"translation": {"en": "..."}``), so that a change to the English text shows up here as
a stale translation, with a diff of what changed in English.

    python tools/zh_sync.py status [NN ...]    what is translated, stale, untranslated
    python tools/zh_sync.py check [NN ...]     exit 1 if code cells or outputs differ
    python tools/zh_sync.py rebuild NN [...]   the code cells (and new cells) from the
                                               English lesson, translations kept, then
                                               executed (jupyter nbconvert --execute)
    python tools/zh_sync.py mark NN [--cell ID ...]
                                               record the English text a translated cell
                                               translates (default: every markdown cell
                                               whose text differs from the English)

``rebuild`` makes a missing Chinese lesson too (all its markdown still English: translate
it, then ``mark``). It writes the notebook whole or not at all (a temporary file renamed
over it), and an interrupted run leaves the old notebook as it was.

What ``check`` compares, code cell by code cell: the source, the metadata (but nbconvert's
timings), the execution count, and the outputs: streams (however split) and text after
lessons/sanitize.cfg (an object's address
changes on every run), error names and messages, and which kinds of output a cell made.
It leaves out, by design: the bytes of an image (they depend on the matplotlib version and
fonts of the machine that ran the notebook; nbval does not compare them either, and the
code that draws them is the same), the view of a widget (a model id new on every run; its
labels are in the notebook's language), and every output of a cell marked
``# NBVAL_IGNORE_OUTPUT`` (nbval ignores it: widgets, real PyTorch's dictionary order).
"""
from __future__ import annotations

import argparse
import copy
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
ZH = LESSONS / "zh"
SANITIZE = LESSONS / "sanitize.cfg"
IGNORE_OUTPUT = re.compile(r"^\s*#\s*NBVAL_IGNORE_OUTPUT\s*$", re.M)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
IMAGES = ("image/png", "image/jpeg", "image/svg+xml")


class UsageError(Exception):
    pass


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _lines(text: str) -> list:
    return text.splitlines(keepends=True)


def english_lessons() -> dict:
    """``{"00": lessons/00_start_here.ipynb, ...}``."""
    return {p.name[:2]: p for p in sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))}


def chinese_lessons() -> dict:
    return {p.name[:2]: p for p in sorted(ZH.glob("[0-9][0-9]_*.ipynb"))}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# --- comparing ----------------------------------------------------------------------------------
def _sanitizers(path: Path = SANITIZE) -> list:
    """The (regex, replacement) pairs of an nbval sanitize file."""
    pairs, pattern = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("regex:"):
            pattern = re.compile(line[len("regex:"):].strip())
        elif line.startswith("replace:") and pattern is not None:
            pairs.append((pattern, line[len("replace:"):].strip()))
            pattern = None
    return pairs


def _clean(text, sanitizers) -> str:
    text = "".join(text) if isinstance(text, list) else str(text)
    for pattern, replacement in sanitizers:
        text = pattern.sub(replacement, text)
    return text


def comparable_outputs(cell, sanitizers) -> list:
    """What ``check`` compares of a code cell's outputs (see the module docstring)."""
    if IGNORE_OUTPUT.search(_source(cell)):
        return ["(outputs ignored: # NBVAL_IGNORE_OUTPUT)"]
    seen = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            text = _clean(output.get("text", ""), sanitizers)
            if seen and seen[-1][:2] == ("stream", output.get("name")):   # one stream, however split
                seen[-1] = ("stream", output.get("name"), seen[-1][2] + text)
            else:
                seen.append(("stream", output.get("name"), text))
        elif kind == "error":
            seen.append(("error", output.get("ename"), _clean(output.get("evalue", ""), sanitizers)))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                seen.append((kind, "a widget"))
                continue
            seen.append((kind, tuple(sorted(data)),
                         tuple((mime, _clean(value, sanitizers)) for mime, value in sorted(data.items())
                               if mime not in IMAGES)))
    return seen


def _cell_metadata(cell) -> dict:
    """A code cell's metadata without nbconvert's timings ("execution")."""
    return {k: v for k, v in cell.get("metadata", {}).items() if k != "execution"}


def differences(english: dict, chinese: dict, sanitizers=None) -> list:
    """What differs between an English lesson and its Chinese copy, other than the
    markdown's text: a list of readable lines (empty when they are in step)."""
    sanitizers = _sanitizers() if sanitizers is None else sanitizers
    problems = []
    meta_en = {k: v for k, v in english.get("metadata", {}).items() if k != "widgets"}
    meta_zh = {k: v for k, v in chinese.get("metadata", {}).items() if k != "widgets"}
    if meta_en != meta_zh:
        problems.append("the notebook metadata differs (kernelspec, language_info or minigrad)")
    en_cells, zh_cells = english["cells"], chinese["cells"]
    en_kinds = [(c["cell_type"], c.get("id")) for c in en_cells]
    zh_kinds = [(c["cell_type"], c.get("id")) for c in zh_cells]
    if en_kinds != zh_kinds:
        matcher = difflib.SequenceMatcher(a=en_kinds, b=zh_kinds, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                problems.append(f"cells differ: English cells {i1}-{i2 - 1} ({tag}) against Chinese "
                                f"cells {j1}-{j2 - 1}: the same cells (types and ids) in the same order")
        return problems
    for index, (en, zh) in enumerate(zip(en_cells, zh_cells)):
        if en["cell_type"] != "code":
            continue
        if _source(en) != _source(zh):
            problems.append(f"cell {index}: the code differs from the English")
        if _cell_metadata(en) != _cell_metadata(zh):
            problems.append(f"cell {index}: the cell metadata (tags) differs from the English")
        if en.get("execution_count") != zh.get("execution_count"):
            problems.append(f"cell {index}: execution count {zh.get('execution_count')}, the English "
                            f"{en.get('execution_count')} (execute both top to bottom)")
        mine, theirs = comparable_outputs(zh, sanitizers), comparable_outputs(en, sanitizers)
        if mine != theirs:
            problems.append(f"cell {index}: the outputs differ from the English ones: "
                            + _first_output_difference(theirs, mine))
    return problems


def _first_output_difference(english, chinese) -> str:
    for i, (a, b) in enumerate(zip(english, chinese)):
        if a != b:
            return f"output {i + 1} is {str(b)[:200]!r}, the English {str(a)[:200]!r}"
    return f"{len(chinese)} outputs, the English {len(english)}"


# --- the state of the translation ---------------------------------------------------------------
def translation_state(english: dict, chinese: dict) -> dict:
    """``{cell id: "translated" | "stale" | "untranslated"}`` for the markdown cells of a
    Chinese lesson whose cells match the English ones: translated (it records the current
    English text), stale (it records an older English text), untranslated (it records
    nothing)."""
    states = {}
    english_text = {c.get("id"): _source(c) for c in english["cells"] if c["cell_type"] == "markdown"}
    for cell in chinese["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        recorded = cell.get("metadata", {}).get("translation", {}).get("en")
        if recorded is None:
            states[cell.get("id")] = "untranslated"
        elif recorded == english_text.get(cell.get("id")):
            states[cell.get("id")] = "translated"
        else:
            states[cell.get("id")] = "stale"
    return states


def stale_diff(english: dict, chinese: dict, cell_id) -> str:
    """What changed in the English text of a stale cell since it was translated."""
    old = next(c for c in chinese["cells"] if c.get("id") == cell_id)["metadata"]["translation"]["en"]
    new = next(_source(c) for c in english["cells"] if c.get("id") == cell_id)
    return "".join(difflib.unified_diff(_lines(old), _lines(new), "English when translated",
                                        "English now", n=1))


# --- rebuilding -----------------------------------------------------------------------------------
def rebuilt(english: dict, chinese: dict | None) -> dict:
    """A Chinese lesson made of the English cells (code cells unexecuted), with the
    markdown of ``chinese`` (its translation and the English text it records) kept for
    every cell id it shares with the English lesson. New English cells come in English,
    untranslated; cells the English lesson no longer has are dropped."""
    ids = [c.get("id") for c in english["cells"]]
    if None in ids or len(set(ids)) != len(ids):
        raise UsageError("the English lesson's cells need unique ids (nbformat 4.5): open and "
                         "save it in Jupyter, or run it through nbconvert")
    kept = {c.get("id"): c for c in (chinese or {}).get("cells", []) if c["cell_type"] == "markdown"}
    cells = []
    for cell in english["cells"]:
        if cell["cell_type"] == "markdown" and cell.get("id") in kept:
            translated = copy.deepcopy(kept[cell["id"]])
            cells.append(translated)
            continue
        new = copy.deepcopy(cell)
        if new["cell_type"] == "code":
            new["outputs"], new["execution_count"] = [], None
        elif new["cell_type"] == "markdown":
            new.setdefault("metadata", {}).pop("translation", None)
        cells.append(new)
    notebook = copy.deepcopy(english)
    notebook["metadata"].pop("widgets", None)
    notebook["cells"] = cells
    return notebook


def execute(notebook: dict, folder: Path) -> dict:
    """``notebook`` run top to bottom by ``jupyter nbconvert --to notebook --execute``, as
    a notebook of ``folder`` (its kernel starts there, so the widgets speak the folder's
    language). The temporary copy it runs is removed whatever happens."""
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".zh_sync-", suffix=".ipynb")
    os.close(handle)
    try:
        write_atomically(Path(temporary), notebook)
        done = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                               "--inplace", "--ExecutePreprocessor.timeout=900", temporary],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise UsageError(f"nbconvert could not execute the notebook:\n{done.stderr[-3000:]}")
        return load(Path(temporary))
    finally:
        Path(temporary).unlink(missing_ok=True)


def write_atomically(path: Path, notebook: dict) -> None:
    """Write ``notebook`` as nbformat does, whole or not at all."""
    import nbformat
    text = nbformat.writes(nbformat.reads(json.dumps(notebook), as_version=4))
    if not text.endswith("\n"):
        text += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)          # as a file written with open() would be
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def mark(english: dict, chinese: dict, cell_ids=None) -> list:
    """Record in each chosen markdown cell of ``chinese`` the English text it translates
    now; by default every markdown cell whose text differs from the English one (it has
    been translated). Returns the ids marked."""
    english_text = {c.get("id"): _source(c) for c in english["cells"] if c["cell_type"] == "markdown"}
    marked = []
    for cell in chinese["cells"]:
        cell_id = cell.get("id")
        if cell["cell_type"] != "markdown" or cell_id not in english_text:
            continue
        if cell_ids is not None:
            if cell_id not in cell_ids:
                continue
        elif _source(cell) == english_text[cell_id]:
            continue
        cell.setdefault("metadata", {})["translation"] = {"en": english_text[cell_id]}
        marked.append(cell_id)
    if cell_ids is not None:
        unknown = sorted(set(cell_ids) - set(marked))
        if unknown:
            raise UsageError(f"no markdown cell with the id(s) {', '.join(unknown)} in both lessons")
    return marked


# --- the command line ------------------------------------------------------------------------------
def _lesson_numbers(numbers, available) -> list:
    if not numbers:
        return sorted(available)
    wrong = [n for n in numbers if not re.fullmatch(r"\d\d", n) or n not in english_lessons()]
    if wrong:
        raise UsageError(f"no English lesson {', '.join(wrong)} (give two-digit numbers of "
                         f"lessons/NN_*.ipynb: {', '.join(english_lessons())})")
    return list(numbers)


def _chinese_path(number) -> Path:
    return ZH / english_lessons()[number].name


def cmd_status(numbers) -> int:
    english, chinese = english_lessons(), chinese_lessons()
    for number in _lesson_numbers(numbers, english):
        if number not in chinese:
            print(f"{number}  not started (python tools/zh_sync.py rebuild {number})")
            continue
        en, zh = load(english[number]), load(chinese[number])
        problems = differences(en, zh)
        if problems and problems[0].startswith("cells differ"):
            print(f"{number}  out of step with the English cells: rebuild it")
            continue
        states = translation_state(en, zh)
        counts = {s: sum(1 for v in states.values() if v == s)
                  for s in ("translated", "stale", "untranslated")}
        code = "code and outputs in step" if not problems else f"{len(problems)} code/output difference(s)"
        print(f"{number}  {counts['translated']} translated, {counts['stale']} stale, "
              f"{counts['untranslated']} untranslated markdown cells; {code}")
        for cell_id, state in states.items():
            if state == "stale":
                print(f"    stale: cell {cell_id}; the English changed:")
                print("      " + stale_diff(en, zh, cell_id).replace("\n", "\n      ").rstrip())
            elif state == "untranslated":
                print(f"    untranslated: cell {cell_id}")
    return 0


def cmd_check(numbers) -> int:
    english, chinese = english_lessons(), chinese_lessons()
    failed = 0
    for number in _lesson_numbers(numbers, chinese):
        if number not in chinese:
            print(f"{number}: no Chinese lesson yet")
            continue
        en, zh = load(english[number]), load(chinese[number])
        problems = differences(en, zh)
        for problem in problems:
            print(f"{chinese[number].relative_to(ROOT)}: {problem}")
        failed += bool(problems)
        if not problems:
            states = translation_state(en, zh)
            todo = [i for i, s in states.items() if s != "translated"]
            note = f" ({len(todo)} markdown cell(s) to translate: status {number})" if todo else ""
            print(f"{chinese[number].relative_to(ROOT)}: in step with the English{note}")
    if failed:
        print(f"{failed} Chinese lesson(s) out of step: python tools/zh_sync.py rebuild NN")
    return 1 if failed else 0


def cmd_rebuild(numbers, run) -> int:
    if not numbers:
        raise UsageError("rebuild needs lesson numbers (e.g. rebuild 02)")
    numbers = _lesson_numbers(numbers, english_lessons())
    for number in numbers:
        target = _chinese_path(number)
        english = load(english_lessons()[number])
        chinese = load(target) if target.exists() else None
        notebook = rebuilt(english, chinese)
        if run:
            print(f"executing {target.relative_to(ROOT)} ...", flush=True)
            notebook = execute(notebook, target.parent)
        write_atomically(target, notebook)
        states = translation_state(english, notebook)
        todo = sum(1 for s in states.values() if s != "translated")
        note = f" ({todo} markdown cell(s) to translate)" if todo else ""
        print(f"wrote {target.relative_to(ROOT)}{note}")
    return 0


def cmd_mark(number, cell_ids) -> int:
    (number,) = _lesson_numbers([number], english_lessons())
    target = _chinese_path(number)
    if not target.exists():
        raise UsageError(f"no {target.relative_to(ROOT)} yet: python tools/zh_sync.py rebuild {number}")
    english, chinese = load(english_lessons()[number]), load(target)
    marked = mark(english, chinese, cell_ids or None)
    write_atomically(target, chinese)
    print(f"marked {len(marked)} cell(s) of {target.relative_to(ROOT)} as translated from the "
          f"current English text")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("status", "check"):
        sub.add_parser(name).add_argument("lessons", nargs="*", metavar="NN")
    rebuild = sub.add_parser("rebuild")
    rebuild.add_argument("lessons", nargs="+", metavar="NN")
    rebuild.add_argument("--no-execute", action="store_true",
                         help="leave the code cells unexecuted (execute before committing)")
    marking = sub.add_parser("mark")
    marking.add_argument("lesson", metavar="NN")
    marking.add_argument("--cell", action="append", default=[], metavar="ID",
                         help="the id of a markdown cell to mark (repeat; default: every "
                              "markdown cell whose text differs from the English)")
    args = parser.parse_args(argv)
    try:
        if args.command == "status":
            return cmd_status(args.lessons)
        if args.command == "check":
            return cmd_check(args.lessons)
        if args.command == "rebuild":
            return cmd_rebuild(args.lessons, run=not args.no_execute)
        return cmd_mark(args.lesson, args.cell)
    except UsageError as exc:
        print(f"zh_sync: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
