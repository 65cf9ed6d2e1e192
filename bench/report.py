"""What the benchmark prints: the header that says what machine and settings the numbers
come from, and the markdown tables of times, ratios, hooks, scaling and memory."""
import os
import platform
import statistics
import subprocess
import time

import numpy as np

from timing import measure_memory
from workloads import BY_NAME, FRAMEWORKS, ROOT, torch

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None


def run_quietly(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:                     # noqa: BLE001 - informational only
        return ""


def header():
    cpu = ""
    for line in run_quietly(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    lines = [
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"machine: {cpu or platform.processor()} ({os.cpu_count()} CPUs), {platform.system()} "
        f"{platform.release()}",
        f"load (uptime): {run_quietly(['uptime']).split('load average:')[-1].strip()}",
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"torch {torch.__version__ if torch else 'not installed'}"
        + (f" (threads: {torch.get_num_threads()})" if torch else ""),
    ]
    commit = run_quietly(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = run_quietly(["git", "-C", ROOT, "status", "--short", "--", "minigrad"])
    if commit:
        lines.append(f"minigrad: {commit}" + (" + uncommitted changes in minigrad/: "
                                             + ", ".join(line.split()[-1] for line in dirty.splitlines())
                                             if dirty else " (clean)"))
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "MKL_", "MALLOC_"))}
    lines.append("env: " + (", ".join(f"{k}={v}" for k, v in sorted(env.items())) or
                            "no OPENBLAS_*/OMP_*/MKL_*/MALLOC_* set"))
    if "OPENBLAS_CORETYPE" in env:
        lines.append("WARNING: OPENBLAS_CORETYPE is set, numpy's BLAS may use a slow kernel; "
                     "run with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/run.py`")
    if threadpoolctl is not None:
        for info in threadpoolctl.threadpool_info():
            if info.get("user_api") == "blas":
                lines.append(f"numpy BLAS: {info.get('internal_api')} {info.get('version')}, "
                             f"kernel {info.get('architecture')}, "
                             f"threads {info.get('num_threads')} (limited to 1 while timing)")
    else:
        lines.append("numpy BLAS: threadpoolctl not installed, kernel unknown; "
                     + str(np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas")))
    return lines


def fmt_time(s):
    if s is None:
        return "—"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def ratio(a, b):
    return None if a is None or b is None else a / b


def fmt_ratio(r, goal=None):
    if r is None:
        return "—"
    s = f"{r:.2f}×"
    if goal is not None:
        s += " ✓" if r <= goal else " ✗"
    return s


def results_table(results):
    rows = ["| workload | minigrad med (min) | torch med (min) | numpy med (min) "
            "| mg/torch med (min) | mg/numpy med (min) | mg per node | goal |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for w, times, note in results:
        med = {fw: statistics.median(t) for fw, t in times.items()}
        mn = {fw: min(t) for fw, t in times.items()}

        def cell(fw):
            if fw not in med:
                return "—"
            return f"{fmt_time(med[fw])} ({fmt_time(mn[fw])})"

        def rcell(other):
            if other not in med:
                return "—"
            r_med = ratio(med["minigrad"], med[other])
            r_min = ratio(mn["minigrad"], mn[other])
            return f"{fmt_ratio(r_med, w.goal.get(other))} ({r_min:.2f}×)"

        per_node = fmt_time(med["minigrad"] / w.nodes) if w.nodes else ""
        goal = ", ".join(f"≤{v:g}× {k}" for k, v in w.goal.items())
        title = f"`{w.name}` {w.title}" + (f" **{note}**" if note else "")
        rows.append(f"| {title} | {cell('minigrad')} | {cell('torch')} | {cell('numpy')} "
                    f"| {rcell('torch')} | {rcell('numpy')} | {per_node} | {goal} |")
    return "\n".join(rows)


def derived_table(results):
    """Hooks and scaling, computed from the main results."""
    med = {w.name: {fw: statistics.median(t) for fw, t in times.items()} for w, times, _ in results}
    out = []
    if "chain300" in med and ("chain300_hooks" in med or "chain300_hooks_removed" in med):
        out += ["", "Hooks (same 300-op chain; ratio to the chain without hooks):", "",
                "| variant | minigrad | torch |", "|---|---:|---:|"]
        for name in ("chain300_hooks", "chain300_hooks_removed"):
            if name in med:
                cells = [fmt_ratio(ratio(med[name].get(fw), med["chain300"].get(fw)))
                         for fw in ("minigrad", "torch")]
                out.append(f"| {BY_NAME[name].title} | {cells[0]} | {cells[1]} |")
    scale = [n for n in ("chain30", "chain300", "chain3000") if n in med]
    if len(scale) >= 2:
        out += ["", "Scaling (median time per node; ratio to the 300-op chain's per-node time):",
                "", "| nodes | minigrad / node | torch / node | numpy / node |",
                "|---:|---:|---:|---:|"]
        ref = {fw: med["chain300"].get(fw) / 300 if "chain300" in med else None
               for fw in FRAMEWORKS}
        for name in scale:
            nodes = BY_NAME[name].nodes
            cells = []
            for fw in FRAMEWORKS:
                t = med[name].get(fw)
                if t is None:
                    cells.append("—")
                    continue
                r = ratio(t / nodes, ref[fw]) if ref.get(fw) else None
                cells.append(fmt_time(t / nodes) + (f" ({r:.2f}×)" if r else ""))
            out.append(f"| {nodes} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def memory_table(width=256, depth=16, batches=(64, 512)):
    mib = 1 / 2 ** 20
    param_bytes = depth * (width * width + width) * 4
    out = [f"Memory (minigrad, tracemalloc): {depth} blocks of Linear({width},{width}) + ReLU, "
           f"cross-entropy, forward + backward + SGD step. Parameters ({param_bytes * mib:.2f} MiB) "
           "are allocated before tracing starts; their gradients are traced.", ""]
    for batch in batches:
        rows = measure_memory(width, depth, batch)
        base_fwd, base_peak = rows[0][1], rows[0][2]
        out += [f"batch {batch}:", "",
                "| configuration | held after forward | vs plain | peak | vs plain "
                "| .grad alive at the end |",
                "|---|---:|---:|---:|---:|---:|"]
        for label, fwd, peak, grads in rows:
            out.append(f"| {label} | {fwd * mib:.2f} MiB | {fwd / base_fwd:.0%} "
                       f"| {peak * mib:.2f} MiB | {peak / base_peak:.0%} | {grads * mib:.2f} MiB |")
        out.append("")
    return "\n".join(out)
