"""``python -m minigrad.diff SCRIPT.py [ARGS...]``: run a PyTorch script under real PyTorch
and under minigrad, and show the first line where their outputs differ.

Each side runs in its own subprocess: ``python SCRIPT.py ARGS...`` (real PyTorch) and
``python -m minigrad.run SCRIPT.py ARGS...`` (minigrad), both with PYTHONHASHSEED=0.
The result is "identical" (exit status 0) or the first differing line with a few lines
of context from both sides (exit status 1). Exit status 2: bad usage, or PyTorch is not
installed (``pip install 'minigrad[torch]'``).

What is compared, in this order:

1. stdout, after two normalisations only: object addresses (``0x7f3a...``) become
   ``0xADDR``, and minigrad's module name becomes torch's (``minigrad.float32`` ->
   ``torch.float32``, ``<class 'minigrad.Tensor'>`` -> ``<class 'torch.Tensor'>``);
2. stderr (skip with ``--stdout-only``), after the same normalisations and three more
   that only a library's internals make different: traceback frames that are not in
   SCRIPT.py are dropped (so a traceback compares by the script's own frames and the
   final ``Error: message`` line), a warning raised outside SCRIPT.py shows
   ``<library>`` for its file and line, and PyTorch's "(Triggered internally at ...)"
   suffix is removed;
3. the exit status.

Mind that minigrad's random numbers differ from PyTorch's for the same seed: a script
that prints random values will differ.
"""
import argparse
import importlib.util
import os
import subprocess
import sys

from ._torch_alias import compare as _compare

__all__ = ["main"]


def _run(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return {"stdout": out, "stderr": f"timed out after {timeout} s", "returncode": "timeout"}
    return {"stdout": p.stdout, "stderr": p.stderr, "returncode": p.returncode}


def _env():
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    # The minigrad side must import this very minigrad, whatever the current directory.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def main(argv=None):
    """Run the script under both frameworks, print the verdict, return 0/1/2."""
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.diff", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stdout-only", action="store_true",
                        help="compare stdout and the exit status, not stderr")
    parser.add_argument("--context", type=int, default=3, metavar="N",
                        help="lines of context shown around the first difference (default 3)")
    parser.add_argument("--timeout", type=float, default=300, metavar="S",
                        help="seconds allowed to each side (default 300)")
    parser.add_argument("script", help="the PyTorch script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    opts = parser.parse_args(argv)
    if not os.path.exists(opts.script):
        print(f"minigrad.diff: no such file: {opts.script}", file=sys.stderr)
        return 2
    if importlib.util.find_spec("torch") is None:
        print("minigrad.diff: PyTorch is not installed, so there is nothing to compare with.\n"
              "Install it with: pip install 'minigrad[torch]'   (or: pip install torch)\n"
              f"To run the script on minigrad alone: python -m minigrad.run {opts.script}",
              file=sys.stderr)
        return 2
    env = _env()
    torch_run = _run([sys.executable, opts.script, *opts.args], env, opts.timeout)
    minigrad_run = _run([sys.executable, "-m", "minigrad.run", opts.script, *opts.args],
                        env, opts.timeout)
    report = _compare(torch_run, minigrad_run, opts.script, stderr=not opts.stdout_only,
                     context=opts.context)
    print("identical" if report is None else report)
    return 0 if report is None else 1


if __name__ == "__main__":
    sys.exit(main())
