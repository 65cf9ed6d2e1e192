"""How the benchmark measures: the agreement check before timing, interleaved timing,
CPU time per node, and traced memory. Nothing here prints a table (see report.py) or
asserts anything about speed."""
import gc
import time
import tracemalloc

import numpy as np

from workloads import FRAMEWORKS, LR, MEMORY_CONFIGS, checkpointed_forward, deep_mlp, item, mg


def check_agreement(w, sides):
    """The first two losses must agree across sides (the second one depends on the
    first step's gradients and update). This runs on the timed models themselves: they
    only move by two small SGD steps before timing."""
    if not w.check:
        return ""
    set_training = sides.get("_set_training")
    if set_training:
        set_training(False)
    losses = {fw: [item(step()), item(step())] for fw, step in sides.items()
              if not fw.startswith("_")}
    if set_training:
        set_training(True)
    ref = losses["minigrad"]
    bad = []
    for fw, vals in losses.items():
        if not np.allclose(vals, ref, rtol=2e-4, atol=1e-5):
            bad.append(f"{fw}={vals}")
    if bad:
        return f"MISMATCH minigrad={ref} " + " ".join(bad)
    return ""


def calibrate(step, sample):
    """Calls per sample so that one sample lasts about `sample` seconds."""
    step()
    t0 = time.perf_counter()
    step()
    t = max(time.perf_counter() - t0, 1e-6)
    calls = max(1, int(sample / t))
    if calls > 1:                      # re-measure with a few calls: the first is noisy
        k = min(calls, 20)
        t0 = time.perf_counter()
        for _ in range(k):
            step()
        t = max((time.perf_counter() - t0) / k, 1e-7)
        calls = max(1, int(sample / t))
    return calls


def time_interleaved(sides, rounds, sample):
    fws = [fw for fw in FRAMEWORKS if fw in sides]
    calls = {fw: calibrate(sides[fw], sample) for fw in fws}
    times = {fw: [] for fw in fws}
    for r in range(rounds):
        order = fws[r % len(fws):] + fws[:r % len(fws)]
        for fw in order:
            step, n = sides[fw], calls[fw]
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(n):
                step()
            times[fw].append((time.perf_counter() - t0) / n)
    return times


def cpu_per_node(fn, nodes, reps):
    """The least process CPU time of ``fn()`` over ``reps`` calls, per node, in
    microseconds (gc off inside): the work itself, without the machine's noise."""
    times = []
    for _ in range(reps):
        gc.collect()
        gc.disable()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
        gc.enable()
    return min(times) / nodes * 1e6


def measure_memory(width=256, depth=16, batch=64):
    """Bytes traced above the starting point (parameters already allocated) for one
    forward + backward + SGD step: held right after the forward, and the peak."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((batch, width), dtype=np.float32)
    y_np = rng.integers(0, width, batch)
    rows = []
    for label, mode, in_backward in MEMORY_CONFIGS:
        model = deep_mlp(width, depth)
        params = list(model.parameters())
        handles = []
        if in_backward:
            handles = mg.optim.step_in_backward(params, lambda p: mg.optim.SGD([p], lr=LR))
        else:
            opt = mg.optim.SGD(params, lr=LR)
        x, y = mg.from_numpy(x_np.copy()), mg.from_numpy(y_np.copy())
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        out = checkpointed_forward(model, x, mode)
        loss = mg.nn.functional.cross_entropy(out, y)
        after_forward = tracemalloc.get_traced_memory()[0] - base
        del out
        loss.backward()
        if not in_backward:
            opt.step()
        grads_alive = sum(p.grad.detach().numpy().nbytes for p in params if p.grad is not None)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        for h in handles:
            h.remove()
        rows.append((label, after_forward, peak, grads_alive))
        del model, params, loss, handles
        gc.collect()
    return rows
