"""The linter, as part of the test run: ``ruff check`` with the settings in
``pyproject.toml`` ([tool.ruff]: pycodestyle's errors and warnings, pyflakes, 110 columns)
over the whole checkout, so ``tools/test-all`` (and CI) fails on an unused import, an
undefined name or a 145-column line the day it is written.
"""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff, "ruff is not installed: pip install -e '.[test]' (the test extra pins it)"
    run = subprocess.run([ruff, "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, \
        f"ruff check found problems (fix them, or run ruff check --fix):\n{run.stdout}{run.stderr}"
