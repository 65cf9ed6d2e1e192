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


# --- the Chinese README: linked from the top, its quick start opens the Chinese lesson 00 ----------
ROOT = Path(__file__).resolve().parents[1]
README_ZH = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")


def test_the_chinese_readme_is_linked_from_the_top():
    top = "\n".join(README.splitlines()[:6])
    assert "[简体中文](README.zh-CN.md)" in top
    assert "[English](README.md)" in "\n".join(README_ZH.splitlines()[:6])


def test_the_chinese_quick_start_opens_the_chinese_lesson_00():
    section = README_ZH.split("## 快速开始", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    assert "jupyter lab --allow-root lessons/zh/00_start_here.ipynb" in commands[0]
    assert (ROOT / "lessons" / "zh" / "00_start_here.ipynb").exists()
    assert "tools/test-all" in commands[1]


def test_the_chinese_binder_badge_opens_the_chinese_lesson_00():
    badge = re.search(r"\(https://mybinder\.org/v2/gh/minigrad/minigrad/HEAD\?urlpath=lab/tree/([^)]+)\)",
                      README_ZH)
    assert badge and badge.group(1) == "lessons/zh/00_start_here.ipynb"
    assert (ROOT / badge.group(1)).exists()
    english = re.search(r"urlpath=lab/tree/([^)]+)\)", README).group(1)
    assert (ROOT / english).exists()


def test_the_chinese_readmes_links_lead_somewhere():
    for target in re.findall(r"\]\(([^)#\s]+)", README_ZH):
        if not re.match(r"[a-z]+://", target):
            assert (ROOT / target).exists(), target
