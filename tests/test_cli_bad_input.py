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


def _running(pid):
    """Whether process ``pid`` still runs (a zombie, dead but not reaped by the process
    that inherited it, counts as stopped)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for_file(path, process, seconds=180):
    """Wait until ``process`` has written ``path`` (the event a test waits for)."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        if process.poll() is not None:
            pytest.fail(f"the process ended ({process.returncode}) before writing {path.name}")
        if time.monotonic() > deadline:
            pytest.fail(f"{path.name} was not written in {seconds} s")
        time.sleep(0.05)
    return path.read_text(encoding="utf-8")


# A script that starts a background process, writes both pids to the file named by its
# first argument (whole, by a rename), then does what follows.
SPAWNER = ("import os, subprocess, sys\n"
           "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
           "with open(sys.argv[1] + '.tmp', 'w') as f:\n"
           "    f.write(f'{os.getpid()} {child.pid}')\n"
           "os.replace(sys.argv[1] + '.tmp', sys.argv[1])\n")


# --- python -m minigrad.diff and minigrad.run -------------------------------------------------

def test_diff_a_timeout_is_never_identical(tmp_path):
    _needs_torch()
    script = _script(tmp_path, "loop.py", 'print("started", flush=True)\nwhile True:\n    pass\n')
    r = _tool("minigrad.diff", "--timeout", "2", script, cwd=tmp_path)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "identical" not in r.stdout
    assert "timed out: the script was still running under torch after" in r.stdout
    assert "(--timeout 2)" in r.stdout


def test_diff_timeout_covers_the_processes_the_script_started(tmp_path):
    """The script ends at once but leaves a process holding its output open: the time
    limit covers it (no wait for its 600 s), it is stopped, and the report says so."""
    _needs_torch()
    script = _script(tmp_path, "spawner.py", SPAWNER + "print('the script ends here')\n")
    r = _tool("minigrad.diff", "--timeout", "5", script, "pids", cwd=tmp_path)
    assert r.returncode == 3, r.stdout + r.stderr
    assert ("timed out: under torch the script finished (exit status 0), but a process it started "
            "was still running after") in r.stdout
    assert "(--timeout 5) with the script's output open; it was stopped" in r.stdout
    assert not any(_running(int(pid)) for pid in (tmp_path / "pids").read_text().split())


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_diff_interrupted_stops_the_script_and_what_it_started(tmp_path, signum):
    _needs_torch()
    script = _script(tmp_path, "spawner.py", SPAWNER + "while True:\n    pass\n")
    with subprocess.Popen([sys.executable, "-m", "minigrad.diff", str(script), "pids"], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        pids = [int(pid) for pid in _wait_for_file(tmp_path / "pids", process).split()]
        process.send_signal(signum)                 # to minigrad.diff alone, as `kill` does
        out, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signum, out + err
    assert "interrupted while the script ran under torch" in err and "Traceback" not in err
    assert out == ""                                # nothing compared
    assert not any(_running(pid) for pid in pids), "the script or its child was left running"


def test_diff_without_arguments_asks_for_the_script_only():
    r = _tool("minigrad.diff")
    assert r.returncode == 2
    error = r.stderr.strip().splitlines()[-1]
    assert error.startswith("python -m minigrad.diff: error: the following argument is required: "
                            "SCRIPT.py"), r.stderr
    assert "args" not in error.lower()


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


WAITER = ("import sys\n"
          "def wait():\n"
          "    print('ready', flush=True)\n"
          "    sys.stdin.read()\n"
          "wait()\n")


def _interrupted(cmd, cwd, signum=signal.SIGINT):
    """Run ``cmd`` (a script that prints 'ready' first, then waits), send it ``signum``
    once it is ready, and return (status, stdout, stderr)."""
    with subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        lines = []
        while "ready" not in lines:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
        process.send_signal(signum)
        out, err = process.communicate(timeout=120)
    return process.returncode, "\n".join(lines) + out, err


def _frames(traceback_text):
    return [line.split('"')[1] for line in traceback_text.splitlines() if line.startswith('  File "')]


def _only_the_scripts_frames(traceback_text, script):
    """What python shows on Ctrl-C: frames from the script's own on (and whatever it was
    running, such as <frozen codecs>), none of minigrad's or runpy's."""
    frames = _frames(traceback_text)
    return frames[:1] == [str(script)] and not any("minigrad" in f or "runpy" in f for f in frames)


def test_run_ctrl_c_shows_the_scripts_frames_and_ends_as_python_does(tmp_path):
    script = _script(tmp_path, "waiter.py", WAITER)
    python = _interrupted([sys.executable, script.name], tmp_path)
    mine = _interrupted([sys.executable, "-m", "minigrad.run", script.name], tmp_path)
    assert python[0] == mine[0] == -signal.SIGINT           # ended by SIGINT: a shell shows 130
    assert mine[2].startswith("Traceback (most recent call last):\n"), mine[2]
    assert mine[2].rstrip().endswith("\nKeyboardInterrupt")
    assert _only_the_scripts_frames(mine[2], script), mine[2]
    assert _only_the_scripts_frames(python[2], script), python[2]


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


def test_trace_never_replaces_a_module_or_file_the_script_reads(tmp_path):
    """Checked before the run: a module the script imports. After it: any file it opened
    or imported (names computed at run time), which is then left as it was."""
    _needs_torch()
    _script(tmp_path, "helper.py", "SCALE = 3.0\n")
    _script(tmp_path, "late_helper.py", "V = 1\n")
    _script(tmp_path, "data.txt", "input\n")
    _script(tmp_path, "victim.py", "import importlib\nfrom helper import SCALE\n" + VICTIM +
            "print(open('da' + 'ta.txt').read().strip(), importlib.import_module('late_' + 'helper').V)\n")
    r = _tool("minigrad.trace", "victim.py", "--html", "helper.py", cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--html helper.py is a module the script imports" in r.stderr and "the script ran" not in r.stdout
    for out in ("data.txt", "late_helper.py"):
        r = _tool("minigrad.trace", "victim.py", "--html", out, cwd=tmp_path)
        assert r.returncode == 2, r.stdout + r.stderr
        assert "the script ran" in r.stdout and "1 backward pass(es)" in r.stdout
        assert (f"--html {out}: the script read it during the run, so it was not replaced and the "
                "page was not written") in r.stderr
    names = ("helper.py", "late_helper.py", "data.txt")
    assert [(tmp_path / name).read_text(encoding="utf-8") for name in names] == \
        ["SCALE = 3.0\n", "V = 1\n", "input\n"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_trace_interrupted_keeps_the_passes_it_recorded(tmp_path, signum):
    _needs_torch()
    script = _script(tmp_path, "waiter.py", VICTIM + WAITER)
    status, out, err = _interrupted(
        [sys.executable, "-m", "minigrad.trace", script.name, "--html", "page.html"], tmp_path, signum)
    assert status == 128 + signum, out + err
    assert "== minigrad.trace: 1 backward pass(es) in waiter.py" in out
    assert "AccumulateGrad(x)" in out and "== minigrad.trace: wrote page.html" in out
    assert (tmp_path / "page.html").read_text(encoding="utf-8").count("<h2>Pass ") == 1
    assert ("minigrad.trace: interrupted: the script did not finish; the 1 pass(es) recorded until then "
            "are listed above; the page is page.html") in err
    if signum == signal.SIGINT:                 # python's Ctrl-C traceback, the script's frames only
        assert "\nKeyboardInterrupt\n" in err and _only_the_scripts_frames(err, script), err
    else:
        assert "Traceback" not in err


def test_trace_runs_a_script_whose_name_is_not_utf8_as_python_does(tmp_path):
    _needs_torch()
    name = os.fsdecode(b"s\xff.py")
    try:
        _script(tmp_path, name, VICTIM)
    except (UnicodeEncodeError, OSError):
        pytest.skip("this file system takes no file name that is not UTF-8")
    env = dict(os.environ, PYTHONIOENCODING="utf-8")        # strict: a surrogate cannot be printed
    python = subprocess.run([sys.executable, name], capture_output=True, text=True, cwd=tmp_path, env=env)
    r = _tool("minigrad.trace", name, "--html", "page.html", cwd=tmp_path, env=env)
    assert python.returncode == r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(python.stdout)
    assert "== minigrad.trace: 1 backward pass(es) in s\\udcff.py" in r.stdout    # as python shows it
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<title>minigrad.trace: s\\udcff.py</title>" in page


def test_trace_ends_quietly_when_its_reader_goes_away(tmp_path):
    """``trace ... | head -1``: the reader closes the pipe; no traceback, status 1."""
    _needs_torch()
    _script(tmp_path, "waiter.py", WAITER + VICTIM.replace("print('the script ran')\n", ""))
    with subprocess.Popen([sys.executable, "-m", "minigrad.trace", "waiter.py"], cwd=tmp_path,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout.readline() == b"ready\n"
        process.stdout.close()                      # the reader is gone
        _, err = process.communicate(b"", timeout=120)  # the script goes on and prints its events
    assert process.returncode == 1, err
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()


@pytest.mark.parametrize("args, says", [
    (["folder"], "minigrad.trace: error: can't find '__main__' module in"),
    (["missing.py"], "minigrad.trace: error: can't open file"),
    (["--bogus", "victim.py"], "minigrad.trace: error: unknown option '--bogus': the first argument is "
                               "the script to run (SCRIPT.py)"),
    ([], "minigrad.trace: error: no script given: the first argument is the script to run"),
])
def test_trace_says_what_it_was_given_and_what_it_expects(tmp_path, args, says):
    (tmp_path / "folder").mkdir()
    _script(tmp_path, "victim.py", VICTIM)
    r = _tool("minigrad.trace", *args, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr, r.stderr
    if args[:1] in (["folder"], ["missing.py"]):
        assert "(the first argument is the script to run: a Python file, or a folder with a __main__.py" \
            in r.stderr


def test_trace_help_prints_its_usage_and_a_script_needs_no_py_suffix(tmp_path):
    r = _tool("minigrad.trace", "--help", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith("usage: python -m minigrad.trace [-h] SCRIPT.py") and "--html" in r.stdout
    _needs_torch()
    _script(tmp_path, "victim", VICTIM)                     # python runs it; so does trace
    r = _tool("minigrad.trace", "victim", cwd=tmp_path)
    assert r.returncode == 0 and "the script ran" in r.stdout and "1 backward pass(es)" in r.stdout


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
    (["--out", ""], "argument --out: must be a path, not an empty string"),
    (["--feedback", ""], "argument --feedback: must be a path, not an empty string"),
    (["--timeout", "nan"], "argument --timeout: must be a number of seconds, not 'nan'"),
    (["--timeout", "inf"], "argument --timeout: must be a finite number of seconds, not 'inf'"),
    (["--timeout", "0"], "argument --timeout: must be a positive number of seconds, not '0'"),
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


def test_grade_names_a_student_folder_that_is_not_utf8_as_python_shows_it(tmp_path):
    from minigrad.exercises.grade import student_of
    from minigrad.utils._cli import write_atomically
    folder = os.fsdecode(b"s\xff")
    assert student_of(Path("subs", folder, "02.ipynb"), Path("subs")) == "s\\udcff"
    write_atomically(tmp_path / "out.csv", f"student\n{folder}\n")        # escaped, not an error
    assert (tmp_path / "out.csv").read_text(encoding="utf-8") == "student\ns\\udcff\n"


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
              "feedback", "--timeout", "600", "--jobs", "2", cwd=root, timeout=1800)
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
    """alice hands in lesson 02 twice (both graded, one kept), zed's notebook loops for ever.
    Once zed's kernel runs its loop (the cell says so in a file), Ctrl-C goes to the whole
    process group, as a terminal sends it, or SIGTERM to the grader alone, as `kill` does."""
    _copy(COMPLETE, tmp_path / "subs" / "alice" / "02.ipynb")
    _copy(COMPLETE, tmp_path / "subs" / "alice" / "02-again.ipynb")
    started = tmp_path / "zed-kernel-pid"
    slow = json.loads(UNTOUCHED.read_text(encoding="utf-8"))
    slow["cells"].insert(1, {"cell_type": "code", "execution_count": None, "id": "slow", "metadata": {},
                             "outputs": [], "source": f"import os\nopen({str(started)!r} + '.tmp', 'w')"
                             f".write(str(os.getpid()))\nos.replace({str(started)!r} + '.tmp', "
                             f"{str(started)!r})\nwhile True:\n    pass\n"})
    (tmp_path / "subs" / "zed").mkdir()
    (tmp_path / "subs" / "zed" / "02.ipynb").write_text(json.dumps(slow), encoding="utf-8")
    scratch, runtime = tmp_path / "tmp", tmp_path / "runtime"
    scratch.mkdir()
    runtime.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), JUPYTER_RUNTIME_DIR=str(runtime))
    gradebook = tmp_path / "gradebook.csv"
    with subprocess.Popen([sys.executable, "-m", "minigrad.grade", "subs", "--out", str(gradebook),
                           "--feedback", "feedback", "--jobs", "1", "--timeout", "600"],
                          cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as process:
        kernel = int(_wait_for_file(started, process, seconds=600))
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        out, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signum, out + err
    assert "Traceback" not in err and "never retrieved" not in err, err
    rows = list(csv.DictReader(gradebook.open(encoding="utf-8")))
    assert {r["student"] for r in rows} == {"alice"} and _points(rows, "alice") == (6, 6)
    assert "2/3 notebooks" in err.splitlines()[-2]       # the progress bar's last line ...
    assert f"interrupted by {signal.Signals(signum).name}: 2 of 3 notebook(s) graded" in err   # agrees
    assert [p.suffix for p in (tmp_path / "feedback" / "alice").iterdir()] == [".md"]   # the one kept
    assert not _running(kernel), "zed's kernel was left running"
    assert list(scratch.iterdir()) == [], "temporary folders left behind"
    assert [p.name for p in runtime.iterdir() if p.name.startswith("kernel")] == [], \
        "kernel connection files left behind"
