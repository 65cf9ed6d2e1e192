"""The command-line tools under bad input: ``python -m minigrad.diff`` / ``minigrad.run``,
``minigrad.trace`` and ``minigrad.grade``, each run for real in a subprocess.

What every case checks: a clear error (and the exit status the tool documents) before
any work starts, nothing the tool was given to read is modified, and no finished result
is lost to a bad output path, a signal or a later error. Scripts are tiny and timeouts
short; the grading cases that need kernels share one class run (a lesson 02 notebook
takes a few seconds in a kernel).
"""
import csv
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSON = "02_tensor_hooks.ipynb"
COMPLETE = ROOT / "lessons" / LESSON                   # every exercise solved: 6/6
UNTOUCHED = ROOT / "lessons" / "student" / LESSON      # the stubs: 0/6


def _tool(module, *args, cwd=None, stdin=None, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, input=stdin, env=env, timeout=timeout)


def _script(folder, name, code):
    path = Path(folder) / name
    path.write_text(code, encoding="utf-8")
    return path


def _needs_torch():
    pytest.importorskip("torch")


# --- python -m minigrad.diff and minigrad.run -------------------------------------------------

def test_diff_a_timeout_is_never_identical(tmp_path):
    _needs_torch()
    script = _script(tmp_path, "loop.py", 'print("started", flush=True)\nwhile True:\n    pass\n')
    r = _tool("minigrad.diff", "--timeout", "2", script, cwd=tmp_path)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "identical" not in r.stdout
    assert "timed out" in r.stdout and "under torch" in r.stdout and "2" in r.stdout


@pytest.mark.parametrize("option, value", [("--timeout", "0"), ("--timeout", "-1"),
                                           ("--timeout", "nan"), ("--timeout", "inf"),
                                           ("--context", "-2")])
def test_diff_rejects_a_bad_timeout_or_context(tmp_path, option, value):
    script = _script(tmp_path, "ok.py", 'print("fine")\n')
    r = _tool("minigrad.diff", option, value, script, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"argument {option}: must be" in r.stderr and "Traceback" not in r.stderr
    assert "identical" not in r.stdout


def test_diff_gives_both_sides_the_same_stdin(tmp_path):
    _needs_torch()
    script = _script(tmp_path, "ask.py", 'print("got", input())\n')
    r = _tool("minigrad.diff", script, cwd=tmp_path, stdin="3\n")
    assert (r.returncode, r.stdout.strip()) == (0, "identical"), r.stdout + r.stderr


def test_diff_refuses_a_folder_before_running_anything(tmp_path):
    (tmp_path / "folder").mkdir()
    r = _tool("minigrad.diff", "folder", cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "can't find '__main__' module in" in r.stderr and r.stdout == ""


@pytest.mark.parametrize("make", ["missing file", "folder"])
def test_run_fails_as_python_does_on_a_script_it_cannot_open(tmp_path, make):
    target = tmp_path / "missing.py"
    if make == "folder":
        target = tmp_path / "folder"
        target.mkdir()
    python = subprocess.run([sys.executable, target.name], capture_output=True, text=True, cwd=tmp_path)
    r = _tool("minigrad.run", target.name, cwd=tmp_path)
    assert (r.returncode, r.stderr) == (python.returncode, python.stderr)
    assert "Traceback" not in r.stderr


def test_diff_shows_progress_on_a_terminal(tmp_path):
    _needs_torch()
    script = _script(tmp_path, "ok.py", 'print("fine")\n')
    main, terminal = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "minigrad.diff", str(script)], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=terminal) as process:
        os.close(terminal)
        shown = b""
        while True:
            ready, _, _ = select.select([main], [], [], 120)
            try:
                chunk = os.read(main, 4096) if ready else b""
            except OSError:            # the terminal's other end closed: the tool ended
                chunk = b""
            if not chunk:
                break
            shown += chunk
        out = process.stdout.read().decode()
    os.close(main)
    assert process.returncode == 0 and out.strip() == "identical"
    assert b"running under torch" in shown and b"running under minigrad" in shown


# --- python -m minigrad.trace ---------------------------------------------------------------------

VICTIM = ("import torch\n"
          "x = torch.tensor([1., 2.], requires_grad=True)\n"
          "w = torch.tensor([0.5, 0.25], requires_grad=True)\n"
          "(x * w).sum().backward()\n"
          "print('the script ran')\n")


def test_trace_never_writes_over_its_script(tmp_path):
    _needs_torch()
    victim = _script(tmp_path, "victim.py", VICTIM)
    data = _script(tmp_path, "data.txt", "some input\n")
    for out in ("victim.py", str(victim), "data.txt"):
        r = _tool("minigrad.trace", "victim.py", "data.txt", "--html", out, cwd=tmp_path)
        assert r.returncode == 2, r.stdout + r.stderr
        assert "one of the inputs" in r.stderr and "the script ran" not in r.stdout
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert data.read_text(encoding="utf-8") == "some input\n"


@pytest.mark.parametrize("html, says", [(None, "--html needs a file name"),
                                        ("victim.py/page.html", "is a file, not a folder"),
                                        ("/proc/minigrad-trace-test.html", "cannot be written")])
def test_trace_checks_its_output_before_running(tmp_path, html, says):
    _needs_torch()
    _script(tmp_path, "victim.py", VICTIM)
    r = _tool("minigrad.trace", "victim.py", "--html", *([html] if html else []), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr
    assert "the script ran" not in r.stdout


def test_trace_writes_the_page_and_prints_values_as_tensors_do(tmp_path):
    _needs_torch()
    _script(tmp_path, "victim.py", VICTIM)
    r = _tool("minigrad.trace", "victim.py", "--html", "out/page.html", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "tensor([0.5000, 0.2500])" in r.stdout          # torch's repr, not numpy's [0.5 , 0.25]
    assert "tensor([0.5 , 0.25])" not in r.stdout
    assert (tmp_path / "out" / "page.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["page.html"]   # no temporary left


def test_trace_exits_as_python_does_on_sys_exit_with_a_message(tmp_path):
    _needs_torch()
    script = _script(tmp_path, "fatal.py", 'import sys\nsys.exit("fatal")\n')
    python = subprocess.run([sys.executable, script.name], capture_output=True, text=True, cwd=tmp_path)
    r = _tool("minigrad.trace", script.name, cwd=tmp_path)
    assert (r.returncode, r.stderr) == (python.returncode, python.stderr) == (1, "fatal\n")


# --- python -m minigrad.grade: output paths and options, refused before any grading ------------

def _copy(source, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


@pytest.fixture
def one_student(tmp_path):
    notebook = _copy(COMPLETE, tmp_path / "subs" / "alice" / "02.ipynb")
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "a_folder").mkdir()
    return tmp_path, notebook


@pytest.mark.parametrize("options, says", [
    (["--out", "a_folder"], "is a folder, not a file"),
    (["--out", "a_file/gradebook.csv"], "is a file, not a folder"),
    (["--out", "/proc/minigrad-grade-test.csv"], "cannot be written"),
    (["--out", "subs/alice/02.ipynb"], "inside subs"),
    (["--out", "res", "--feedback", "res"], "same place"),
    (["--feedback", "subs/feedback"], "inside subs"),
    (["--feedback", "a_file"], "is a file, not a folder"),
    (["--timeout", "nan"], "--timeout: must be a positive number"),
    (["--timeout", "inf"], "--timeout: must be a positive number"),
])
def test_grade_refuses_bad_outputs_and_timeouts_before_grading(one_student, options, says):
    folder, notebook = one_student
    before = notebook.read_bytes()
    r = _tool("minigrad.grade", "subs", *options, cwd=folder)
    assert r.returncode == 2, r.stdout + r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr
    assert "grading [" not in r.stderr                     # nothing was graded
    assert notebook.read_bytes() == before
    assert not (folder / "gradebook.csv").exists() and not (folder / "res").exists()


# --- python -m minigrad.grade: one class, graded once -----------------------------------------

@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """alice and bob hand in week2/02.ipynb (alice's complete, bob's untouched); carol's
    notebook is not JSON; p.ipynb is given by itself."""
    root = tmp_path_factory.mktemp("grade_class")
    class_folder = root / "any name"
    _copy(COMPLETE, class_folder / "alice" / "week2" / "02.ipynb")
    _copy(UNTOUCHED, class_folder / "bob" / "week2" / "02.ipynb")
    corrupt = class_folder / "carol" / "02.ipynb"
    corrupt.parent.mkdir(parents=True)
    corrupt.write_text('{"cells": [', encoding="utf-8")
    single = _copy(COMPLETE, root / "elsewhere" / "p.ipynb")
    r = _tool("minigrad.grade", class_folder, single, "--out", "gradebook.csv", "--feedback",
              "feedback", "--timeout", "60", "--jobs", "2", cwd=root, timeout=600)
    gradebook = root / "gradebook.csv"
    rows = list(csv.DictReader(gradebook.open(encoding="utf-8"))) if gradebook.exists() else []
    return {"run": r, "rows": rows, "feedback": root / "feedback", "corrupt": corrupt}


def _points(rows, student):
    mine = [r for r in rows if r["student"] == student]
    return sum(int(r["points"]) for r in mine), sum(int(r["max_points"]) for r in mine)


def test_grade_the_student_is_the_first_folder_under_the_path_given(graded):
    run, rows = graded["run"], graded["rows"]
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted({r["student"] for r in rows}) == ["alice", "bob", "carol", "p"]
    assert _points(rows, "alice") == (6, 6) and _points(rows, "bob") == (0, 6)
    assert "several notebooks" not in run.stderr


def test_grade_feedback_agrees_with_the_gradebook(graded):
    for student, name in [("alice", "02.md"), ("bob", "02.md"), ("p", "p.md")]:
        text = (graded["feedback"] / student / name).read_text(encoding="utf-8")
        points, total = _points(graded["rows"], student)
        assert f"**{points} / {total} points**" in text, (student, text)


def test_grade_names_a_single_notebook_after_its_file(graded):
    assert _points(graded["rows"], "p") == (6, 6)
    assert sorted(p.name for p in graded["feedback"].iterdir()) == ["alice", "bob", "p"]


def test_grade_says_a_corrupt_notebook_is_not_valid_json(graded):
    carol = [r for r in graded["rows"] if r["student"] == "carol"]
    assert carol and all(r["status"] == "missing" for r in carol)
    for row in carol:
        assert "not valid JSON" in row["message"] and str(graded["corrupt"]) in row["message"]
    assert "not valid JSON" in graded["run"].stderr
    assert graded["corrupt"].read_text(encoding="utf-8") == '{"cells": ['


# --- python -m minigrad.grade: interrupted ---------------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_grade_interrupted_keeps_finished_rows_and_cleans_up(tmp_path, signum):
    _copy(COMPLETE, tmp_path / "subs" / "alice" / "02.ipynb")
    slow = json.loads(UNTOUCHED.read_text(encoding="utf-8"))
    slow["cells"].insert(1, {"cell_type": "code", "execution_count": None, "id": "slow",
                             "metadata": {}, "outputs": [], "source": "while True:\n    pass\n"})
    (tmp_path / "subs" / "zed").mkdir()
    (tmp_path / "subs" / "zed" / "02.ipynb").write_text(json.dumps(slow), encoding="utf-8")
    scratch, runtime = tmp_path / "tmp", tmp_path / "runtime"
    scratch.mkdir()
    runtime.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), JUPYTER_RUNTIME_DIR=str(runtime))
    gradebook = tmp_path / "gradebook.csv"
    with subprocess.Popen([sys.executable, "-m", "minigrad.grade", "subs", "--out", str(gradebook),
                           "--feedback", "feedback", "--jobs", "1", "--timeout", "300"],
                          cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        deadline = time.monotonic() + 180
        while not gradebook.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)                          # zed's kernel is running its endless cell
        process.send_signal(signum)
        out, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signum, out + err
    rows = list(csv.DictReader(gradebook.open(encoding="utf-8")))
    assert {r["student"] for r in rows} == {"alice"} and _points(rows, "alice") == (6, 6)
    assert "1 of 2 notebook(s) graded" in err
    assert (tmp_path / "feedback" / "alice" / "02.md").exists()
    assert list(scratch.iterdir()) == [], "temporary folders left behind"
    assert [p.name for p in runtime.iterdir() if p.name.startswith("kernel")] == [], \
        "kernel connection files left behind"
