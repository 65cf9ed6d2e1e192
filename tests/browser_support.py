"""Helpers for tests/test_browser.py: a throwaway JupyterLab server, headless Chromium,
and a replica that computes in plain Python what the engine stepper widget must show.

The order of the steps below (kernel session over REST first, accept any dialog, clear
then run all) is what made the test pass every time on this project's machines.
"""
import contextlib
import html.parser
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Not copied into the temporary tree: history, caches and build output.
_COPY_IGNORE = shutil.ignore_patterns(
    ".git", "build", "dist", ".venv*", "__pycache__", ".ipynb_checkpoints", "*.egg-info",
    ".pytest_cache", ".hypothesis", "*.pyc")

CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def free_port():
    """A TCP port that was free a moment ago on 127.0.0.1 (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_repo(dst):
    """Copy the work tree (not .git or build output) to ``dst``, so that Lab's autosave
    never writes into the real notebooks."""
    shutil.copytree(ROOT, dst, ignore=_COPY_IGNORE)
    return Path(dst)


def _pids_mentioning(marker):
    """Pids of live processes whose command line contains ``marker`` (a unique temp path)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            pids.append(int(entry.name))
    return pids


class JupyterLab:
    """JupyterLab on 127.0.0.1 with a random token over ``root_dir``, with its own fresh
    config, data, runtime and IPython directories under ``state_dir``.

    Use as a context manager: the server (its process group) and its kernels are always
    terminated on exit.
    """

    def __init__(self, root_dir, state_dir, startup_timeout=30.0):
        self.root_dir = Path(root_dir)
        self.state_dir = Path(state_dir)
        self.startup_timeout = startup_timeout
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.state_dir / "jupyter-lab.log"
        self.proc = None
        self.startup_seconds = None

    # ------------------------------------------------------------------ process
    def __enter__(self):
        dirs = {name: self.state_dir / name for name in ("config", "data", "runtime", "ipython")}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.update(JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_DATA_DIR=str(dirs["data"]),
                   JUPYTER_RUNTIME_DIR=str(dirs["runtime"]), IPYTHONDIR=str(dirs["ipython"]),
                   JUPYTER_PLATFORM_DIRS="0", PYTHONUNBUFFERED="1")
        # No "get notified about Jupyter news?" toast over the page (or the screenshot).
        settings = dirs["config"] / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
        env.pop("JUPYTER_PATH", None)
        env.pop("MPLBACKEND", None)  # the kernel must use its inline backend
        cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
               "--ip=127.0.0.1", f"--port={self.port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={self.root_dir}",
               "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        self._log = open(self.log_path, "wb")
        start = time.monotonic()
        self.proc = subprocess.Popen(cmd, cwd=self.root_dir, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        self.startup_seconds = time.monotonic() - start
        return self

    def _wait_ready(self):
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n"
                                   + self.log_tail())
            try:
                self.api("GET", "/api/status", timeout=2)
                return
            except (OSError, urllib.error.URLError):
                time.sleep(0.2)
        raise TimeoutError(f"jupyter lab not ready after {self.startup_timeout} s:\n"
                           + self.log_tail())

    def __exit__(self, *exc):
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None:
                # Kernels run in their own sessions (jupyter_client starts them so):
                # shut them down over REST first, then stop the server's process group.
                with contextlib.suppress(Exception):
                    for kernel in self.api("GET", "/api/kernels", timeout=5):
                        self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=10)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(timeout=10)
        finally:
            # Anything still holding our private runtime dir (a kernel) is ours: end it.
            for pid in _pids_mentioning(str(self.state_dir / "runtime")):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self._log.close()

    def log_tail(self, n=4000):
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return "(no log)"

    # ------------------------------------------------------------------ REST
    def api(self, method, path, body=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers={
            "Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
        return json.loads(raw) if raw else None

    def create_session(self, notebook_path):
        """Start the notebook's kernel before the page opens (no "Select Kernel" race)."""
        return self.api("POST", "/api/sessions", {
            "path": notebook_path, "name": Path(notebook_path).name, "type": "notebook",
            "kernel": {"name": "python3"}}, timeout=60)

    def kernel_state(self, kernel_id):
        return self.api("GET", f"/api/kernels/{kernel_id}")["execution_state"]

    def lab_url(self, notebook_path):
        return f"{self.base_url}/lab/tree/{notebook_path}?token={self.token}"


def launch_chromium(playwright, profile_dir, viewport=(1400, 1000)):
    """Debian's chromium, headless, with a new empty profile (never `playwright install`)."""
    return playwright.chromium.launch_persistent_context(
        str(profile_dir), executable_path=shutil.which("chromium"), headless=True,
        args=CHROMIUM_ARGS, viewport={"width": viewport[0], "height": viewport[1]})


# ---------------------------------------------------------------------- text helpers
class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def html_text(markup):
    """The visible text of an HTML fragment, whitespace collapsed (as compared with the
    browser's innerText)."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return squash("".join(parser.parts))


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


# ---------------------------------------------------------------------- the replica
# Runs in a fresh interpreter: executes the notebook's code cells up to the first one
# that builds an EngineStepper (the same code the kernel runs), then drives that stepper
# in Python and prints, as JSON, the status text, event-list items and state panels it
# shows after Reset, Step, Step, Step and Run to end, and Python's own answer for the
# ready queue and the dependency counts, read from the engine's state on the event
# (not from the widget's HTML).
_REPLICA = r'''
import ast, contextlib, io, json, os, sys
import nbformat
from minigrad.viz import EngineStepper

path = sys.argv[1]
os.chdir(os.path.dirname(os.path.abspath(path)))
nb = nbformat.read(path, as_version=4)
ns = {"__name__": "__main__"}
value = None
for index, cell in enumerate(nb.cells):
    if cell.cell_type != "code":
        continue
    lines = [("pass  # " + l) if l.lstrip().startswith(("%", "!")) else l
             for l in cell.source.splitlines()]
    tree = ast.parse("\n".join(lines))
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(tree, f"<cell {index}>", "exec"), ns)
        value = None if last is None else eval(
            compile(ast.Expression(last.value), f"<cell {index}>", "eval"), ns)
    if "EngineStepper(" in cell.source:
        break
else:
    sys.exit("no cell builds an EngineStepper")

if isinstance(value, EngineStepper):
    stepper = value
else:
    found = [v for v in ns.values() if isinstance(v, EngineStepper)]
    if len(found) != 1:
        sys.exit(f"expected one EngineStepper after cell {index}, found {len(found)}")
    stepper = found[0]

from minigrad.viz._common import node_label
from minigrad.viz.stepper import _seq_text as seq_text

def answer():
    event = stepper.current
    state = None if event is None else event.state
    if state is None:
        return {"queue": [], "deps": []}
    name = lambda node: node_label(node, stepper._lookup, multiline=False)
    return {"queue": [[name(node), "seq " + seq_text(seq)] for seq, node, _ in state.queue],
            "deps": [[name(node), str(count)] for node, count in state.dependencies.items()]}

def view():
    items = stepper.event_list.value.split("<li")[1:]
    return {"status": stepper.status.value,
            "events": ["<li" + item for item in items],
            "panels": {css: getattr(stepper, attr).value for css, attr in PANELS},
            "answer": answer()}

PANELS = (("minigrad-next-hook", "next_hook"), ("minigrad-queue", "queue"),
          ("minigrad-deps", "deps"), ("minigrad-buffers", "buffers"))
out = {}
stepper.reset(); out["reset"] = view()
stepper.step(); out["step1"] = view()
stepper.step(); out["step2"] = view()
stepper.step(); out["step3"] = view()
stepper.run_to_end(); out["done"] = view()
out["n_events"] = len(stepper.events)
print("REPLICA-JSON " + json.dumps(out))
'''


def start_replica(notebook_file):
    """Start the replica in the background; pass the result to :func:`replica_result`."""
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.Popen([sys.executable, "-c", _REPLICA, str(notebook_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, stdin=subprocess.DEVNULL)


def replica_result(proc, timeout=60):
    """What Python shows after each action: {action: {"status": text, "events": [text],
    "panels": {css class: text}, "answer": {"queue": [[node, "seq n"]], "deps": [[node,
    "count"]]}}}."""
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    lines = [line for line in stdout.splitlines() if line.startswith("REPLICA-JSON ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"replica failed ({proc.returncode}):\n{stderr[-3000:]}")
    raw = json.loads(lines[-1][len("REPLICA-JSON "):])
    result = {"n_events": raw.pop("n_events")}
    for action, v in raw.items():
        result[action] = {"status": html_text(v["status"]),
                          "events": [html_text(e) for e in v["events"]],
                          "panels": {k: html_text(t) for k, t in v["panels"].items()},
                          "answer": v["answer"]}
    return result
