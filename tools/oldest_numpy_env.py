"""Make (or reuse) a virtual environment with the oldest numpy minigrad supports, for the
second nbval run of ``tools/test-all``.

A checked notebook output that depends on the numpy version (a compressed size, the last
digits of a float32 sum, a repr that changed between releases) passes on the machine that
executed the notebook and fails on a learner's. Running ``lessons/`` and ``spec/`` once more
with the oldest numpy that ``pyproject.toml`` allows (it also brings an older OpenBLAS) shows
such an output before a learner meets it.

"Oldest" is the lowest numpy release at or above the floor in ``pyproject.toml``
(``numpy>=X.Y``) that has a wheel for the running Python: on Python 3.11 that is the floor
itself; a newer Python has no wheel of an old numpy, so the first minor release that has
one is used. The environment holds what the lessons need (the ``lessons`` extra), the test
tools pinned in the ``test`` extra, and minigrad from this checkout (editable); no torch.

Usage: python tools/oldest_numpy_env.py [VENV_DIR]   (default build/venv-oldest-numpy)
Prints the environment's python as the last line of standard output; progress goes to stderr.
Exit status 1 (with the reason on stderr) when no numpy release fits.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_TOOLS = ("nbval", "pytest", "pytest-xdist")     # taken from the test extra, pins and all


def log(message: str) -> None:
    print(f"[oldest-numpy] {message}", file=sys.stderr, flush=True)


def pyproject_requirements() -> tuple[str, list[str]]:
    """(numpy's floor "X.Y", the test extra's requirements for TEST_TOOLS)."""
    text = (ROOT / "pyproject.toml").read_text()
    floor = re.search(r'"numpy>=([0-9]+\.[0-9]+)', text)
    if floor is None:
        sys.exit("pyproject.toml has no numpy>=X.Y dependency to read the floor from")
    test_extra = re.search(r"^test = \[(.*?)^\]", text, re.S | re.M)
    requirements = re.findall(r'"([^"]+)"', test_extra.group(1)) if test_extra else []
    tools = [req for req in requirements
             if re.split(r"[<>=!~\[ ]", req, maxsplit=1)[0] in TEST_TOOLS]
    return floor.group(1), tools


def minor_releases_from(floor: str, pip: list[str]) -> list[str]:
    """numpy's minor releases ("1.24", "1.25", ...) from the floor up, oldest first."""
    found = subprocess.run(pip + ["index", "versions", "numpy"], capture_output=True, text=True)
    versions = re.findall(r"\b(\d+)\.(\d+)\.\d+\b", found.stdout.partition("Available versions:")[2])
    lowest = tuple(int(part) for part in floor.split("."))
    minors = sorted({(int(major), int(minor)) for major, minor in versions} | {lowest})
    return [f"{major}.{minor}" for major, minor in minors if (major, minor) >= lowest]


def main() -> int:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "venv-oldest-numpy"
    python = target / "bin" / "python"
    floor, tools = pyproject_requirements()
    marker = target / "minigrad-oldest-numpy.json"
    wanted = {"floor": floor, "tools": tools, "python": sys.version.split()[0],
              "pyproject": (ROOT / "pyproject.toml").read_text()}
    if python.exists() and marker.exists() and json.loads(marker.read_text()).get("want") == wanted:
        numpy_version = json.loads(marker.read_text())["numpy"]
        log(f"reusing {target} (numpy {numpy_version})")
        print(python)
        return 0

    log(f"creating {target} (numpy floor {floor} from pyproject.toml)")
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "-q"]
    for minor in minor_releases_from(floor, pip):
        log(f"trying numpy=={minor}.* (wheels only)")
        tried = subprocess.run(pip + ["install", "--only-binary=numpy", f"numpy=={minor}.*"])
        if tried.returncode == 0:
            break
    else:
        log(f"no numpy release from {floor} on has a wheel for Python {sys.version.split()[0]}")
        return 1
    subprocess.run(pip + ["install", "--only-binary=numpy", f"numpy=={minor}.*", "-e",
                          f"{ROOT}[lessons]", *tools], check=True)
    numpy_version = subprocess.run([str(python), "-c", "import numpy; print(numpy.__version__)"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    marker.write_text(json.dumps({"want": wanted, "numpy": numpy_version}))
    log(f"ready: numpy {numpy_version}")
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
