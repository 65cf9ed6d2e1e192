"""The README's promises: the quick start is two commands, and its example prints what
its comments say, under minigrad and (when installed) under PyTorch."""
import contextlib
import io
import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _example():
    block = re.search(r"```python\n(import minigrad as torch.*?)```", README, re.S).group(1)
    code = "\n".join(line for line in block.splitlines() if not line.startswith("# "))
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    return code, expected


def _run(code, module):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.replace("import minigrad as torch", ""), {"torch": module})
    return out.getvalue().splitlines()


def test_quick_start_is_two_commands():
    section = README.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    # --allow-root: jupyter refuses to start as root without it (containers, CI); it
    # changes nothing for other users. Without a display, jupyter prints the URL to open.
    assert "jupyter lab --allow-root lessons/00_start_here.ipynb" in commands[0]
    assert "tools/test-all" in commands[1]


def test_example_prints_what_the_readme_says():
    import minigrad
    code, expected = _example()
    assert _run(code, minigrad) == expected


def test_example_prints_the_same_under_pytorch():
    torch = pytest.importorskip("torch")
    code, expected = _example()
    assert _run(code, torch) == expected
