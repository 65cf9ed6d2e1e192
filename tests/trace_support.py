"""Run many scenario scripts in one Python process, recording their backward passes.

    python tests/trace_support.py torch|minigrad|plain OUT.json SCRIPT.py ...

- ``torch``: real torch, each script inside ``minigrad.trace.torch_events()``;
- ``plain``: real torch, no recording (what the script prints unrecorded);
- ``minigrad``: ``import torch`` resolves to minigrad (the redirect of ``python -m minigrad.run``),
  each script inside ``minigrad.autograd.engine.record_events()``.

torch (or minigrad) is imported once; every script then runs in a child made with
``os.fork()``, so each starts from the same fresh state (grad mode, hook registries,
sequence numbers) at the cost of a fork, not an interpreter start-up. The parent
imports torch but runs no op, so no thread pool exists yet when it forks.
OUT.json maps each script's name to its stdout, exit status and events (all
passes in order, as ``minigrad.trace.comparable`` gives them).
"""
import io
import json
import os
import runpy
import sys
import tempfile
import traceback

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)
TIMEOUT = 60


def _record(side):
    if side == "torch":
        from minigrad.trace import torch_events
        return torch_events()
    if side == "minigrad":
        return _minigrad_events()
    return None


def _minigrad_events():
    """``record_events()`` whose list keeps each event as ``comparable`` reads it at
    the moment the engine emits it, as the torch recording copies gradients when
    it sees them. Keeping the events themselves would keep their nodes alive (and
    an AccumulateGrad node's hooks with them), which some scenarios print."""
    from minigrad.autograd import engine
    from minigrad.trace import COMPARED_KINDS, comparable

    class Comparable(list):
        def append(self, event):
            if event.kind in COMPARED_KINDS:
                super().extend(comparable([event]))

    class record(engine.record_events):
        def __enter__(self):
            super().__enter__()
            engine._local.recorders[-1] = self.events = Comparable()
            return self.events

    return record()


def run_one(side, script):
    """Run ``script`` in this process; return what it printed, its status, its passes."""
    out = io.StringIO()
    stdout = sys.stdout
    sys.stdout = out
    sys.argv = [script]
    status = 0
    recorder = _record(side)
    events = []
    try:
        if recorder is None:
            runpy.run_path(script, run_name="__main__")
        else:
            with recorder as events:
                runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (exc.code is not None)
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        status = 1
    finally:
        sys.stdout.flush()
        sys.stdout = stdout
    if side == "torch":
        from minigrad.trace import comparable
        events = comparable(events)
    return {"stdout": out.getvalue(), "status": status, "events": list(events)}


def run_forked(side, script):
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            with open(path, "w") as f:
                json.dump(run_one(side, script), f)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    _, wait_status = os.waitpid(pid, 0)
    try:
        with open(path) as f:
            text = f.read()
        return json.loads(text) if text else {"stdout": "", "status": "crashed", "events": []}
    finally:
        os.unlink(path)


def main(argv):
    side, out, scripts = argv[0], argv[1], argv[2:]
    if side == "minigrad":
        from minigrad import _torch_alias
        _torch_alias.install()
    else:
        import torch  # noqa: F401  (imported once, before forking)
    results = {os.path.basename(s): run_forked(side, os.path.abspath(s)) for s in scripts}
    with open(out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1:])
