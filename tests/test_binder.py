"""The Binder environment (binder/) runs the lessons.

repo2docker needs docker, which this project's machines don't have, so the slow test
rebuilds the same environment in a fresh venv:
the Binder base image's packages, then -- from the repo root, as repo2docker does --
``pip install -r binder/requirements.txt && bash binder/postBuild``, then runs the
lessons through ``pytest --nbval-lax`` with that venv's Python.
"""
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# What the Binder base image (repo2docker) already has.
BASE_IMAGE = ["jupyterlab==4.*", "notebook==7.*", "ipywidgets==8.*", "jupyter_server==2.*"]
TEST_TOOLS = ["pytest>=8", "nbval==0.11.0"]


def _lesson_notebooks():
    lessons = ROOT / "lessons"
    return [p for p in sorted(lessons.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts] \
        if lessons.is_dir() else []


def _missing_tool(message):
    """Outside CI a missing tool skips; in CI it is a failure."""
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def test_binder_files():
    assert BINDER.is_dir()
    assert not (ROOT / ".binder").exists(), "binder/ and .binder/ together is an error on Binder"
    assert not (BINDER / "environment.yml").exists(), \
        "environment.yml would make Binder ignore requirements.txt and runtime.txt"
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"

    reqs = [line.split("#")[0].strip() for line in (BINDER / "requirements.txt").read_text().splitlines()]
    reqs = [r for r in reqs if r]
    names = {re.split(r"[=<>!~\[ ]", r, maxsplit=1)[0].lower() for r in reqs}
    assert {"numpy", "matplotlib", "ipywidgets", "ipykernel", "jupyterlab", "notebook"} <= names
    assert "torch" not in names, "torch is too big for Binder; lessons must run without it"
    unpinned = [r for r in reqs if "==" not in r]
    assert not unpinned, f"pin every Binder requirement with ==: {unpinned}"

    post = (BINDER / "postBuild").read_text()
    assert post.startswith("#!/bin/bash\n")
    assert re.search(r"^set -e", post, re.M), "without set -e Binder ignores postBuild errors"
    assert "pip install --no-deps -e ." in post
    assert "import matplotlib.pyplot" in post


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    if r.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {r.returncode}\n"
                    f"--- stdout (tail)\n{r.stdout[-4000:]}\n--- stderr (tail)\n{r.stderr[-4000:]}")
    return r


@pytest.mark.slow
def test_lessons_run_in_the_binder_environment(tmp_path):
    if not _lesson_notebooks():
        pytest.skip("no notebooks in lessons/ yet")
    if sys.version_info[:2] != (3, 11):
        print(f"note: Binder uses Python 3.11 (binder/runtime.txt), this venv uses {sys.version.split()[0]}")

    env_dir = tmp_path / "binder-venv"
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    except Exception as exc:  # e.g. Debian python without ensurepip
        _missing_tool(f"cannot create a venv with pip: {exc}")
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"

    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    env.update(VIRTUAL_ENV=str(env_dir), PATH=f"{bindir}{os.pathsep}{env['PATH']}",
               PIP_DISABLE_PIP_VERSION_CHECK="1", MPLBACKEND="Agg")
    env.pop("MPLCONFIGDIR", None)

    pip = [str(py), "-m", "pip", "install", "--quiet", "--no-compile"]
    _run(pip + BASE_IMAGE, env=env)
    # as repo2docker does, from the repo root
    _run(pip + ["-r", "binder/requirements.txt"], cwd=ROOT, env=env)
    _run(["bash", "binder/postBuild"], cwd=ROOT, env=env)
    _run(pip + TEST_TOOLS, env=env)

    # minigrad must come from the repo, installed by postBuild
    r = _run([str(py), "-c", "import minigrad; print(list(minigrad.__path__)[0])"], cwd=tmp_path, env=env)
    assert Path(r.stdout.strip()).resolve().is_relative_to(ROOT.resolve()), r.stdout

    r = subprocess.run(
        # a kernel may take more than nbval's default 60 s to start on a busy 2-core machine
        [str(py), "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env",
         "--nbval-kernel-startup-timeout", "180", "--nbval-sanitize-with", "lessons/sanitize.cfg",
         # the Chinese lessons run the English lessons' code (tests/test_zh_lessons.py): the
         # English ones prove the environment
         "--ignore=lessons/zh", "-q", "lessons/"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert r.returncode == 0, f"lax nbval in the Binder venv failed:\n{r.stdout[-6000:]}\n{r.stderr[-3000:]}"
