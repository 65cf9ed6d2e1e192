"""Where minigrad's time goes: cProfile of one workload (``--profile``), one training step
split by node type and the engine (``--where``), and the per-node CPU budget of the
300-op chain (``--budget``)."""
import collections
import cProfile
import gc
import os
import pstats
import statistics
import sys
import time

from report import fmt_time
from timing import calibrate, cpu_per_node
from workloads import BY_NAME, MEMORY, chain_passes, mg, torch


def profile(name, seconds):
    if name == MEMORY:
        sys.exit("the memory workload is not timed; profile a timed one (--list)")
    w = BY_NAME[name]
    step = w.build()["minigrad"]
    calls = calibrate(step, seconds)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        step()
    prof.disable()
    print(f"cProfile of the minigrad side of `{name}` ({w.title}), {calls} calls; "
          f"top 25 by tottime:\n")
    pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats("tottime").print_stats(25)


def where_time_goes(name, steps=200):
    """One minigrad step of ``name`` split by wall time: outside the backward (forward,
    ``zero_grad``, optimizer step), and inside it each node type's ``apply`` (the
    formulas and their numpy work) and the engine's own share; plus the page faults and
    system time per step (large temporaries that malloc hands back to the OS are paid
    again as page faults on the next step). The median of ``steps`` steps, gc off."""
    import resource
    from minigrad import _dispatch
    from minigrad.autograd import engine, graph
    w = BY_NAME[name]
    step = w.build()["minigrad"]
    inside = collections.defaultdict(float)     # this step's time per part

    def timed(function, key):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                inside[key(args) if callable(key) else key] += time.perf_counter() - start
        return wrapper
    patches = [(engine, "run_backward", "backward"),
               (_dispatch.OpNode, "apply", lambda args: type(args[0]).__name__),
               (graph.AccumulateGrad, "apply", "AccumulateGrad")]
    originals = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    for owner, attr, key in patches:
        setattr(owner, attr, timed(getattr(owner, attr), key))
    samples = collections.defaultdict(list)
    try:
        for _ in range(5):
            step()
        gc.collect()
        gc.disable()
        before = resource.getrusage(resource.RUSAGE_SELF)
        for _ in range(steps):
            inside.clear()
            start = time.perf_counter()
            step()
            total = time.perf_counter() - start
            nodes = sum(v for k, v in inside.items() if k != "backward")
            samples["step"].append(total)
            samples["outside backward"].append(total - inside["backward"])
            samples["engine's own (backward minus node applies)"].append(inside["backward"] - nodes)
            for key, value in inside.items():
                if key != "backward":
                    samples[key].append(value)
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        gc.enable()
        for owner, attr, original in originals:
            setattr(owner, attr, original)
    print(f"## where the time of one minigrad `{name}` step goes (median of {steps} steps, "
          "gc off, the timers' own cost included)\n")
    print("| part | time per step |\n|---|---:|")
    for key, values in samples.items():
        print(f"| {key} | {fmt_time(statistics.median(values))} |")
    print(f"\npage faults per step: {(after.ru_minflt - before.ru_minflt) / steps:.0f}, "
          f"system CPU per step: {fmt_time((after.ru_stime - before.ru_stime) / steps)}")


def budget(n=300, reps=41, top=8):
    """The per-node microsecond budget of the forward and of the backward on the
    ``n``-op chain: CPU time per node for minigrad and torch, then minigrad's split over
    its functions (cProfile's tottime shares applied to the unprofiled time)."""
    print(f"## per-node budget: chain of {n} ops on 16 float32 values (CPU us per node, "
          f"least of {reps} passes)\n")
    print("| | forward | backward | total |\n|---|---:|---:|---:|")
    split = {}
    for name, lib in (("minigrad", mg), ("torch", torch)):
        if lib is None:
            continue
        forward, backward = chain_passes(lib, n, reps)
        losses = [forward() for _ in range(reps)]
        fwd = cpu_per_node(forward, n + 1, reps)
        bwd = cpu_per_node(lambda: backward(losses.pop()), n + 2, reps)
        print(f"| {name} | {fwd:.1f} | {bwd:.1f} | {fwd + bwd:.1f} |")
        split[name] = (fwd, bwd)
    fwd, bwd = split["minigrad"]
    forward, backward = chain_passes(mg, n, reps)
    losses = [forward() for _ in range(reps)]
    phases = (("forward", lambda: [forward() for _ in range(reps)], fwd, n + 1),
              ("backward", lambda: [backward(loss) for loss in losses], bwd, n + 2))
    for phase, run, per_node, nodes in phases:
        gc.collect()
        gc.disable()                    # as in the timing: a collection is not the op's work
        prof = cProfile.Profile()
        prof.enable()
        run()
        prof.disable()
        gc.enable()
        stats = pstats.Stats(prof).stats
        total = sum(entry[2] for entry in stats.values())
        rows = sorted(((entry[2], f"{os.path.basename(file)}:{func}") for (file, _, func), entry
                       in stats.items()), reverse=True)[:top]
        print(f"\nminigrad {phase}, {per_node:.1f} us per node, by function (tottime share):\n")
        print("| function | us per node | share |\n|---|---:|---:|")
        for tottime, where in rows:
            print(f"| `{where}` | {per_node * tottime / total:.2f} | {tottime / total:.0%} |")
