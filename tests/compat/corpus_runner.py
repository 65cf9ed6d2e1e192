"""Run many PyTorch scripts in ONE interpreter and write each one's output as JSON.

Usage::

    python tests/compat/corpus_runner.py torch    OUT.json SCRIPT.py...   # real PyTorch
    python tests/compat/corpus_runner.py minigrad OUT.json SCRIPT.py...   # import torch -> minigrad

Starting one interpreter per script and framework would cost a PyTorch import each
time; here each script runs with ``runpy`` in a fresh ``__main__`` namespace, exactly as
``python -m minigrad.run`` runs it (same redirect, same ``run_script``), with its stdout
and stderr captured separately. Between scripts the state that leaks across scripts in
one process is reset: grad mode, print options, default dtype, anomaly mode, global
module hooks, hook-handle ids, the warnings registry, the RNG seed, the working directory.

OUT.json maps each script's file name to ``{"stdout", "stderr", "returncode", "seconds"}``.
"""
import contextlib
import gc
import io
import json
import os
import sys
import time
import warnings

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def reset_state(torch):
    """Put back what a script may have changed in the framework's global state."""
    torch.set_grad_enabled(True)
    if hasattr(torch, "set_printoptions"):
        try:
            torch.set_printoptions(profile="default", sci_mode=None)
        except TypeError:
            pass
    if hasattr(torch, "set_default_dtype"):
        torch.set_default_dtype(torch.float32)
    if hasattr(torch.autograd, "set_detect_anomaly"):
        torch.autograd.set_detect_anomaly(False)
    module_module = torch.nn.modules.module
    for name in dir(module_module):
        if name.startswith("_global_"):
            value = getattr(module_module, name)
            if isinstance(value, dict):
                value.clear()
    if hasattr(module_module, "_global_is_full_backward_hook"):
        module_module._global_is_full_backward_hook = None
    torch.utils.hooks.RemovableHandle.next_id = 0  # hook dicts print handle ids
    torch.manual_seed(0)
    gc.collect()


def main(argv):
    framework, out_path, scripts = argv[0], argv[1], argv[2:]
    sys.path.insert(1, REPO_ROOT)
    from minigrad._torch_alias import install
    from minigrad.run import run_script
    if framework == "minigrad":
        install()
    elif framework != "torch":
        raise SystemExit(f"unknown framework {framework!r}: torch or minigrad")
    import torch
    import torch.nn.modules.module  # noqa: F401 - for reset_state
    import torch.utils.hooks  # noqa: F401
    cwd, path0 = os.getcwd(), sys.path[0]
    results = {}
    for script in scripts:
        reset_state(torch)
        out, err = io.StringIO(), io.StringIO()
        start = time.perf_counter()
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run_script(script)
        results[os.path.basename(script)] = {
            "stdout": out.getvalue(), "stderr": err.getvalue(), "returncode": status,
            "seconds": round(time.perf_counter() - start, 3)}
        os.chdir(cwd)
        sys.path[0] = path0
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
