"""``python -m minigrad.run`` and ``python -m minigrad.diff``: the user-facing tools."""
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from minigrad.diff import compare, normalise, normalise_stderr

REPO_ROOT = Path(__file__).resolve().parents[2]
TORCH_AVAILABLE = importlib.util.find_spec("torch") is not None


def _script(tmp_path, code, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return path


def _python(*args, cwd):
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          cwd=str(cwd), env=env, timeout=120)


def test_run_redirects_every_torch_import_to_minigrad(tmp_path):
    script = _script(tmp_path, """
        import sys
        import torch
        from torch import nn
        import torch.nn.functional as F
        from torch.autograd.graph import saved_tensors_hooks
        from torch.utils.checkpoint import checkpoint
        import minigrad, minigrad.nn.functional, minigrad.autograd.graph, minigrad.utils.checkpoint
        print(torch is minigrad, nn is minigrad.nn, F is minigrad.nn.functional)
        print(saved_tensors_hooks is minigrad.autograd.graph.saved_tensors_hooks,
              checkpoint is minigrad.utils.checkpoint.checkpoint)
        print(sys.argv, __name__, "torch._C" in sys.modules)
        sys.exit(3)
    """)
    p = _python("-m", "minigrad.run", script.name, "a", "--b", cwd=tmp_path)
    assert p.stdout.splitlines() == ["True True True", "True True",
                                     "['script.py', 'a', '--b'] __main__ False"], p.stderr
    assert p.returncode == 3


def test_run_names_a_missing_torch_api(tmp_path):
    script = _script(tmp_path, """
        import torch
        print("before")
        torch.no_such_function(1)
    """)
    p = _python("-m", "minigrad.run", script, cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout == "before\n"
    lines = p.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith(f'  File "{script}", line 4, in <module>'), p.stderr
    assert "runpy" not in p.stderr and "_torch_alias" not in p.stderr
    assert lines[-1] == (
        "AttributeError: minigrad has no torch.no_such_function yet (the script used "
        f"torch.no_such_function). See what real PyTorch does: python -m minigrad.diff {script}; "
        "ask for it: https://github.com/minigrad/minigrad/issues")


@pytest.mark.parametrize("code, api", [
    ("import torch.no_such_module", "torch.no_such_module"),
    ("from torch.nn import NoSuchLayer", "torch.nn.NoSuchLayer"),
    ("import torch\ntorch.nn.functional.no_such_op", "torch.nn.functional.no_such_op"),
])
def test_run_names_missing_submodules_and_names(tmp_path, code, api):
    script = _script(tmp_path, code + "\n")
    p = _python("-m", "minigrad.run", script, cwd=tmp_path)
    assert p.returncode == 1
    assert f"minigrad has no {api} yet" in p.stderr, p.stderr


def test_run_without_a_script_prints_usage():
    p = _python("-m", "minigrad.run", cwd=REPO_ROOT)
    assert p.returncode == 2 and "usage: python -m minigrad.run" in p.stderr


def test_normalise_addresses_and_module_name():
    assert normalise("<MulBackward0 object at 0x7f3a2c1b9e10> minigrad.float32 "
                     "<class 'minigrad.Tensor'> myminigrad.x") == (
        "<MulBackward0 object at 0xADDR> torch.float32 <class 'torch.Tensor'> myminigrad.x")


def test_normalise_stderr_keeps_only_the_scripts_frames(tmp_path):
    script = str(tmp_path / "s.py")
    text = (
        "Traceback (most recent call last):\n"
        f'  File "{script}", line 3, in <module>\n'
        "    y.backward()\n"
        '  File "/somewhere/torch/_tensor.py", line 625, in backward\n'
        "    torch.autograd.backward(\n"
        "    ^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "RuntimeError: element 0 of tensors does not require grad\n"
        "/somewhere/torch/nn/modules/module.py:1869: FutureWarning: deprecated "
        "(Triggered internally at /pytorch/engine.cpp:12.)\n"
        "  self._maybe_warn()\n"
        f"{script}:7: UserWarning: in the script\n"
        "  print(a.grad)\n")
    assert normalise_stderr(text, script) == (
        "Traceback (most recent call last):\n"
        f'  File "{script}", line 3, in <module>\n'
        "    y.backward()\n"
        "RuntimeError: element 0 of tensors does not require grad\n"
        "<library>: FutureWarning: deprecated\n"
        f"{script}:7: UserWarning: in the script\n"
        "  print(a.grad)\n")


def test_normalise_stderr_drops_a_multiline_library_warning_up_to_its_source_line(tmp_path):
    """Anomaly mode's "Error detected in" warning carries the forward call's frames and
    ends with a blank line before the source line of the library's warnings.warn: both
    libraries' versions reduce to the warning's first line."""
    script = str(tmp_path / "s.py")

    def anomaly_warning(location, source_line, suffix):
        return (f"{location}: UserWarning: Error detected in MulBackward0. Traceback of forward call "
                "that caused the error:\n"
                f'  File "{script}", line 4, in <module>\n'
                "    y = x * x\n"
                f"{suffix}\n"
                f"  {source_line}\n"
                "Traceback (most recent call last):\n")

    torch_text = anomaly_warning("/somewhere/torch/autograd/graph.py:979", "return Variable._engine",
                                 " (Triggered internally at /pytorch/python_anomaly_mode.cpp:122.)")
    minigrad_text = anomaly_warning("/somewhere/minigrad/autograd/anomaly_mode.py:107", "warnings.warn(", "")
    expected = ("<library>: UserWarning: Error detected in MulBackward0. Traceback of forward call "
                "that caused the error:\nTraceback (most recent call last):\n")
    assert normalise_stderr(torch_text, script) == normalise_stderr(minigrad_text, script) == expected


def test_compare_reports_the_first_differing_line():
    run = {"stdout": "a\nb\nc\n", "stderr": "", "returncode": 0}
    assert compare(run, dict(run), "s.py") is None
    report = compare(run, dict(run, stdout="a\nB\nc\n"), "s.py", context=1)
    assert report.splitlines() == [
        "first difference: stdout line 2",
        "--- torch", "     1 | a", ">    2 | b", "     3 | c",
        "--- minigrad", "     1 | a", ">    2 | B", "     3 | c"]
    assert compare(run, dict(run, returncode=1), "s.py").startswith("exit status 0 under torch, 1")
    assert compare(run, dict(run, stderr="oops\n"), "s.py").startswith("first difference: stderr line 1")
    assert compare(run, dict(run, stderr="oops\n"), "s.py", stderr=False) is None


@pytest.mark.torch
@pytest.mark.skipif(not TORCH_AVAILABLE, reason="torch is not installed (pip install -e '.[torch]')")
def test_diff_says_identical_or_shows_the_first_difference(tmp_path):
    same = _script(tmp_path, """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        print(x.grad, x.dtype)
    """, "same.py")
    p = _python("-m", "minigrad.diff", same, cwd=tmp_path)
    assert (p.returncode, p.stdout) == (0, "identical\n"), p.stdout + p.stderr
    other = _script(tmp_path, """
        import torch
        print("same line")
        print(torch.__version__)
    """, "other.py")
    p = _python("-m", "minigrad.diff", other, cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout.startswith(
        "first difference: stdout line 2\n--- torch\n     1 | same line\n>    2 | 2.13"), p.stdout
