"""minigrad vs PyTorch CPU vs hand-written numpy, side by side in one process.

    python bench/run.py                  # every workload, full rounds (~1-2 min)
    python bench/run.py --quick          # fewer, shorter rounds (a smoke run)
    python bench/run.py --only chain300,mlp_relu
    python bench/run.py --profile chain300   # cProfile the minigrad side, top 25 by tottime
    python bench/run.py --list

Every workload is built once per framework from the same initial values (and checked to
compute the same loss/gradient before it is timed). Timing interleaves the frameworks
round-robin (the order rotates every round), so a burst of load from other jobs on the
machine hits all of them alike; each sample is the mean of enough calls to last
``--sample`` seconds, and the table reports the median and the min over the rounds.

Ratios are minigrad / other: below 1.0 means minigrad is faster. This file only
measures; it asserts nothing about speed (no timing assertions anywhere in tests).
See bench/README.md for what each workload measures and the goals.
"""
import argparse
import collections
import cProfile
import gc
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:                 # run from a checkout without installing
    sys.path.insert(0, ROOT)

import minigrad as mg                    # noqa: E402
import minigrad.models                   # noqa: E402,F401  (not imported by minigrad itself)
import minigrad.optim                    # noqa: E402,F401

try:
    import torch                         # noqa: E402
except ImportError:                      # the table then shows only minigrad and numpy
    torch = None

try:
    import threadpoolctl                 # noqa: E402
except ImportError:
    threadpoolctl = None

FRAMEWORKS = ("minigrad", "torch", "numpy")
LR = 0.01


# --------------------------------------------------------------------------------------
# helpers


def _to_torch(a, requires_grad=False):
    t = torch.from_numpy(np.array(a, copy=True))
    return t.requires_grad_(requires_grad) if requires_grad else t


def _copy_params(mg_params, torch_params):
    """Give the torch model the minigrad model's initial values (same layout: PyTorch's)."""
    mg_params, torch_params = list(mg_params), list(torch_params)
    assert len(mg_params) == len(torch_params)
    with torch.no_grad():
        for p, q in zip(mg_params, torch_params):
            assert tuple(p.shape) == tuple(q.shape), (p.shape, q.shape)
            q.copy_(torch.from_numpy(np.array(p.detach().numpy())))


def _item(loss):
    if loss is None:
        return None
    if isinstance(loss, np.ndarray) or np.isscalar(loss):
        return float(loss)
    return float(loss.item())


def _softmax_xent(logits, y):
    """Hand-written cross-entropy (mean over the batch): loss and d loss / d logits."""
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = np.log(s[:, 0]).mean() - shifted[rows, y].mean()
    dlogits = e / s
    dlogits[rows, y] -= 1.0
    dlogits *= 1.0 / n
    return loss, dlogits


def _numpy_sgd(params, grads):
    """The hand-written sides' SGD update, in place."""
    for p, g in zip(params, grads):
        p -= LR * g


# --------------------------------------------------------------------------------------
# workloads: each returns {framework: step}, where step() does one full iteration and
# returns the loss (or None); `check` says which sides must agree on the first losses.


class Workload:
    def __init__(self, name, title, build, goal=None, nodes=None, check=True, note=""):
        self.name, self.title, self.build = name, title, build
        self.goal = goal or {}           # {"torch": 1.0, "numpy": 1.25}: max allowed ratio
        self.nodes = nodes               # graph nodes per step, for the per-node column
        self.check = check
        self.note = note


def _minigrad_sgd_step(model, x, y):
    """One minigrad training step (zero_grad, cross-entropy, backward, SGD step) as a
    callable returning the loss."""
    opt = mg.optim.SGD(model.parameters(), lr=LR)
    mx, my = mg.from_numpy(x.copy()), mg.from_numpy(y.copy())

    def step():
        opt.zero_grad()
        loss = mg.nn.functional.cross_entropy(model(mx), my)
        loss.backward()
        opt.step()
        return loss
    return step


def build_mlp(act):
    def build():
        batch, sizes = 64, (784, 256, 256, 10)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((batch, sizes[0]), dtype=np.float32)
        y = rng.integers(0, sizes[-1], batch)
        sides = {}

        # minigrad
        mg.manual_seed(0)
        Act = mg.nn.ReLU if act == "relu" else mg.nn.Tanh
        model = mg.nn.Sequential(mg.nn.Linear(784, 256), Act(), mg.nn.Linear(256, 256), Act(),
                                 mg.nn.Linear(256, 10))
        sides["minigrad"] = _minigrad_sgd_step(model, x, y)
        init = [np.array(p.detach().numpy(), copy=True) for p in model.parameters()]

        # torch
        if torch is not None:
            TAct = torch.nn.ReLU if act == "relu" else torch.nn.Tanh
            tmodel = torch.nn.Sequential(torch.nn.Linear(784, 256), TAct(),
                                         torch.nn.Linear(256, 256), TAct(),
                                         torch.nn.Linear(256, 10))
            _copy_params(model.parameters(), tmodel.parameters())
            topt = torch.optim.SGD(tmodel.parameters(), lr=LR)
            tx, ty = _to_torch(x), _to_torch(y)

            def step_torch():
                topt.zero_grad()
                loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
                loss.backward()
                topt.step()
                return loss
            sides["torch"] = step_torch

        # numpy, by hand: forward, backward, SGD update in place
        W1, b1, W2, b2, W3, b3 = [a.copy() for a in init]

        def step_np():
            a1 = x @ W1.T + b1
            if act == "relu":
                h1 = np.maximum(a1, 0)
                a2 = h1 @ W2.T + b2
                h2 = np.maximum(a2, 0)
            else:
                h1 = np.tanh(a1)
                a2 = h1 @ W2.T + b2
                h2 = np.tanh(a2)
            logits = h2 @ W3.T + b3
            loss, d3 = _softmax_xent(logits, y)
            dW3, db3 = d3.T @ h2, d3.sum(0)
            dh2 = d3 @ W3
            d2 = dh2 * (a2 > 0) if act == "relu" else dh2 * (1 - h2 * h2)
            dW2, db2 = d2.T @ h1, d2.sum(0)
            dh1 = d2 @ W2
            d1 = dh1 * (a1 > 0) if act == "relu" else dh1 * (1 - h1 * h1)
            dW1, db1 = d1.T @ x, d1.sum(0)
            _numpy_sgd((W1, b1, W2, b2, W3, b3), (dW1, db1, dW2, db2, dW3, db3))
            return loss
        sides["numpy"] = step_np
        return sides
    return build


def build_chain(n, hooks=None):
    """y = x; then n ops alternating ``y * 1.0001`` and ``y + 0.5`` on 16 float32
    values; ``y.sum().backward()``. hooks: None, "each" (a no-op tensor hook on every
    intermediate) or "removed" (registered and removed again: empty hook dicts)."""
    def build():
        x0 = np.linspace(0.0, 1.0, 16, dtype=np.float32)
        sides = {}

        def make(lib, x):
            def step():
                y = x
                for i in range(n):
                    y = y * 1.0001 if i % 2 == 0 else y + 0.5
                    if hooks == "each":
                        y.register_hook(_noop_hook)
                    elif hooks == "removed":
                        y.register_hook(_noop_hook).remove()
                loss = y.sum()
                loss.backward()
                x.grad = None
                return loss
            return step

        sides["minigrad"] = make(mg, mg.tensor(x0.copy(), requires_grad=True))
        if torch is not None:
            sides["torch"] = make(torch, _to_torch(x0, requires_grad=True))
        if hooks is None:
            def step_np():
                y = x0
                for i in range(n):
                    y = y * np.float32(1.0001) if i % 2 == 0 else y + np.float32(0.5)
                loss = y.sum()
                g = np.ones_like(x0)               # d loss / d y
                for i in reversed(range(n)):       # backward of add is the identity
                    if i % 2 == 0:
                        g = g * np.float32(1.0001)
                return loss
            sides["numpy"] = step_np
        return sides
    return build


def build_mlp_raw():
    """An MLP of raw ops, no nn.Module: ``relu(x @ W1 + b1)``, ``tanh(h1 @ W2 + b2)``,
    ``h2 @ W3 + b3``, cross-entropy, backward, then a hand-written SGD update under
    ``no_grad`` and ``.grad = None`` (batch 64, 784-256-256-10)."""
    def build():
        batch = 64
        rng = np.random.default_rng(1)
        x = rng.standard_normal((batch, 784), dtype=np.float32)
        y = rng.integers(0, 10, batch)
        init = [(rng.standard_normal(shape, dtype=np.float32) * np.float32(scale))
                for shape, scale in (((784, 256), 0.03), ((256,), 0.01), ((256, 256), 0.06),
                                     ((256,), 0.01), ((256, 10), 0.06), ((10,), 0.01))]
        sides = {}

        def make(lib, params, xs, ys):
            def step():
                W1, b1, W2, b2, W3, b3 = params
                h1 = (xs @ W1 + b1).relu()
                h2 = (h1 @ W2 + b2).tanh()
                loss = lib.nn.functional.cross_entropy(h2 @ W3 + b3, ys)
                loss.backward()
                with lib.no_grad():
                    for p in params:
                        p -= LR * p.grad
                        p.grad = None
                return loss
            return step

        sides["minigrad"] = make(mg, [mg.tensor(a.copy(), requires_grad=True) for a in init],
                                 mg.from_numpy(x.copy()), mg.from_numpy(y.copy()))
        if torch is not None:
            sides["torch"] = make(torch, [_to_torch(a, requires_grad=True) for a in init],
                                  _to_torch(x), _to_torch(y))
        W1, b1, W2, b2, W3, b3 = [a.copy() for a in init]

        def step_np():
            a1 = x @ W1 + b1
            h1 = np.maximum(a1, 0)
            h2 = np.tanh(h1 @ W2 + b2)
            loss, d3 = _softmax_xent(h2 @ W3 + b3, y)
            dW3, db3 = h2.T @ d3, d3.sum(0)
            d2 = (d3 @ W3.T) * (1 - h2 * h2)
            dW2, db2 = h1.T @ d2, d2.sum(0)
            d1 = (d2 @ W2.T) * (a1 > 0)
            dW1, db1 = x.T @ d1, d1.sum(0)
            _numpy_sgd((W1, b1, W2, b2, W3, b3), (dW1, db1, dW2, db2, dW3, db3))
            return loss
        sides["numpy"] = step_np
        return sides
    return build


def build_chain_transcendental(n):
    """Per-node cost with transcendental ops: ``n`` ops cycling ``* 1.0001``, ``tanh``,
    ``+ 0.5``, ``exp`` on 16 float32 values, then ``.sum().backward()``."""
    def build():
        x0 = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
        sides = {}

        def make(x):
            def step():
                y = x
                for i in range(n):
                    k = i % 4
                    y = y * 1.0001 if k == 0 else y.tanh() if k == 1 else y + 0.5 if k == 2 else y.exp()
                loss = y.sum()
                loss.backward()
                x.grad = None
                return loss
            return step

        sides["minigrad"] = make(mg.tensor(x0.copy(), requires_grad=True))
        if torch is not None:
            sides["torch"] = make(_to_torch(x0, requires_grad=True))

        def step_np():
            ys, y = [], x0
            for i in range(n):
                k = i % 4
                ys.append(y)
                y = (y * np.float32(1.0001) if k == 0 else np.tanh(y) if k == 1
                     else y + np.float32(0.5) if k == 2 else np.exp(y))
            loss = y.sum()
            ys.append(y)                # ys[i + 1] is op i's output, which tanh and exp reuse
            g = np.ones_like(x0)
            for i in reversed(range(n)):
                k, out = i % 4, ys[i + 1]
                if k == 0:
                    g = g * np.float32(1.0001)
                elif k == 1:
                    g = g * (1 - out * out)
                elif k == 3:
                    g = g * out
            return loss
        sides["numpy"] = step_np
        return sides
    return build


def with_float32_kernels(build):
    """The same workload with ``minigrad.set_exact_float32_math(False)`` around each
    minigrad step (numpy's float32 transcendental kernels; the other sides unchanged)."""
    def wrapped():
        sides = build()
        exact_step = sides["minigrad"]

        def step():
            mg.set_exact_float32_math(False)
            try:
                return exact_step()
            finally:
                mg.set_exact_float32_math(True)
        sides["minigrad"] = step
        return sides
    return wrapped


def _noop_hook(grad):
    return None


def build_cnn():
    batch = 64
    images, targets = mg.models.load_split("train")
    x = np.ascontiguousarray(images.detach().numpy()[:batch])            # [64, 1, 8, 8] float32
    y = np.asarray(targets.detach().numpy()[:batch], dtype=np.int64)
    sides = {}

    model = mg.models.make_cnn()                               # seeds minigrad itself
    sides["minigrad"] = _minigrad_sgd_step(model, x, y)
    init = [np.array(p.detach().numpy(), copy=True) for p in model.parameters()]
    # The sides draw different dropout masks, so the loss check runs in eval mode.
    modes = [model]

    if torch is not None:
        nn = torch.nn
        tmodel = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 4 * 4, 10))
        _copy_params(model.parameters(), tmodel.parameters())
        topt = torch.optim.SGD(tmodel.parameters(), lr=LR)
        tx, ty = _to_torch(x), _to_torch(y)

        def step_torch():
            topt.zero_grad()
            loss = nn.functional.cross_entropy(tmodel(tx), ty)
            loss.backward()
            topt.step()
            return loss
        sides["torch"] = step_torch
        modes.append(tmodel)

    # numpy by hand, channels-last inside (the layout numpy likes); im2col with
    # sliding_window_view, col2im as 9 shifted adds.
    K1, c1, K2, c2, L, bl = [a.copy() for a in init]
    rng = np.random.default_rng(0)
    training = {"on": True}

    def im2col(h):                          # h: [N, H, W, C] -> [N*H*W, C*9]
        n, hh, ww, c = h.shape
        hp = np.pad(h, ((0, 0), (1, 1), (1, 1), (0, 0)))
        win = np.lib.stride_tricks.sliding_window_view(hp, (3, 3), axis=(1, 2))
        return win.reshape(n * hh * ww, c * 9)              # (C, kh, kw) order, like torch

    def step_np():
        n = x.shape[0]
        x_nhwc = x.transpose(0, 2, 3, 1)
        cols1 = im2col(x_nhwc)
        a1 = cols1 @ K1.reshape(16, -1).T + c1                 # [N*64, 16]
        h1 = np.maximum(a1, 0).reshape(n, 8, 8, 16)
        cols2 = im2col(h1)
        a2 = cols2 @ K2.reshape(32, -1).T + c2
        h2 = np.maximum(a2, 0).reshape(n, 4, 2, 4, 2, 32)
        pooled = h2.max(axis=(2, 4))                           # [N, 4, 4, 32]
        flat = pooled.transpose(0, 3, 1, 2).reshape(n, -1)     # torch flattens C, H, W
        if training["on"]:
            keep = (rng.random(flat.shape) >= 0.25).astype(np.float32) * np.float32(1 / 0.75)
            flat = flat * keep
        logits = flat @ L.T + bl
        loss, dlog = _softmax_xent(logits, y)
        dL, dbl = dlog.T @ flat, dlog.sum(0)
        dflat = dlog @ L
        if training["on"]:
            dflat *= keep
        dpooled = dflat.reshape(n, 32, 4, 4).transpose(0, 2, 3, 1)
        # Max-pool backward by a mask: ties only happen at 0 (ReLU), where the
        # ReLU backward below zeroes the gradient anyway.
        mask = h2 == pooled[:, :, None, :, None, :]
        da2 = (mask * dpooled[:, :, None, :, None, :]).reshape(-1, 32) * (a2 > 0)
        dK2, dc2 = (da2.T @ cols2).reshape(K2.shape), da2.sum(0)
        dcols2 = (da2 @ K2.reshape(32, -1)).reshape(n, 8, 8, 16, 3, 3)
        dh1p = np.zeros((n, 10, 10, 16), np.float32)
        for i in range(3):
            for j in range(3):
                dh1p[:, i:i + 8, j:j + 8, :] += dcols2[..., i, j]
        da1 = dh1p[:, 1:9, 1:9, :].reshape(-1, 16) * (a1 > 0)
        dK1, dc1 = (da1.T @ cols1).reshape(K1.shape), da1.sum(0)
        for p, g in ((K1, dK1), (c1, dc1), (K2, dK2), (c2, dc2), (L, dL), (bl, dbl)):
            p -= LR * g
        return loss
    sides["numpy"] = step_np

    def set_training(flag):
        training["on"] = flag
        for m in modes:
            m.train(flag)
    sides["_set_training"] = set_training
    return sides


WORKLOADS = [
    Workload("mlp_relu", "MLP step 784-256-256-10 ReLU, b=64", build_mlp("relu"),
             goal={"torch": 1.0, "numpy": 1.25}),
    Workload("mlp_tanh", "MLP step 784-256-256-10 Tanh, b=64", build_mlp("tanh"),
             goal={"torch": 1.0, "numpy": 1.25}),
    Workload("mlp_raw", "MLP of raw matmuls, ReLU+Tanh, cross-entropy, b=64", build_mlp_raw(),
             goal={"torch": 1.0, "numpy": 1.25}),
    Workload("mlp_raw_f32math", "the same, set_exact_float32_math(False)",
             with_float32_kernels(build_mlp_raw()), goal={"torch": 1.0, "numpy": 1.25}),
    Workload("chain300", "chain of 300 elementwise ops, fwd+bwd", build_chain(300),
             goal={"torch": 2.0}, nodes=300),
    Workload("chain300_tanh_exp", "chain of 300 ops: mul, tanh, add, exp", build_chain_transcendental(300),
             goal={"torch": 2.0}, nodes=300),
    Workload("chain300_tanh_exp_f32math", "the same, set_exact_float32_math(False)",
             with_float32_kernels(build_chain_transcendental(300)), goal={"torch": 2.0}, nodes=300),
    Workload("chain300_hooks", "same chain, a tensor hook on every node",
             build_chain(300, "each"), nodes=300),
    Workload("chain300_hooks_removed", "same chain, hook registered then removed",
             build_chain(300, "removed"), nodes=300),
    Workload("cnn", "CNN step (make_cnn) on 8x8 digits, b=64", build_cnn, goal={"torch": 1.5}),
    Workload("chain30", "scaling: chain of 30", build_chain(30), nodes=30),
    Workload("chain3000", "scaling: chain of 3000", build_chain(3000), nodes=3000),
]
BY_NAME = {w.name: w for w in WORKLOADS}
MEMORY = "memory"          # not timed: its own table


# --------------------------------------------------------------------------------------
# correctness check and timing


def check_agreement(w, sides):
    """The first two losses must agree across sides (the second one depends on the
    first step's gradients and update). This runs on the timed models themselves: they
    only move by two small SGD steps before timing."""
    if not w.check:
        return ""
    set_training = sides.get("_set_training")
    if set_training:
        set_training(False)
    losses = {fw: [_item(step()), _item(step())] for fw, step in sides.items()
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


def fmt_time(s):
    if s is None:
        return "—"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


# --------------------------------------------------------------------------------------
# memory (tracemalloc sees numpy's buffers, so it measures minigrad's activations/grads)


def _deep_mlp(width, depth):
    mg.manual_seed(0)
    blocks = [mg.nn.Sequential(mg.nn.Linear(width, width), mg.nn.ReLU()) for _ in range(depth)]
    return mg.nn.Sequential(*blocks)


def _forward(model, x, mode):
    from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential
    if mode == "every":
        for block in model:
            x = checkpoint(block, x, use_reentrant=False)
        return x
    if mode.startswith("seg"):
        return checkpoint_sequential(model, int(mode[3:]), x, use_reentrant=False)
    return model(x)


MEMORY_CONFIGS = [
    # label, checkpoint mode, optimizer in backward
    ("no checkpoint, plain SGD step", "none", False),
    ("checkpoint every block", "every", False),
    ("checkpoint_sequential, 4 segments", "seg4", False),
    ("checkpoint_sequential, 2 segments", "seg2", False),
    ("optimizer in backward (step_in_backward)", "none", True),
    ("4 segments + optimizer in backward", "seg4", True),
]


def measure_memory(width=256, depth=16, batch=64):
    """Bytes traced above the starting point (parameters already allocated) for one
    forward + backward + SGD step: held right after the forward, and the peak."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((batch, width), dtype=np.float32)
    y_np = rng.integers(0, width, batch)
    rows = []
    for label, mode, in_backward in MEMORY_CONFIGS:
        model = _deep_mlp(width, depth)
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
        out = _forward(model, x, mode)
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


# --------------------------------------------------------------------------------------
# header, table, profile


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:                     # noqa: BLE001 - informational only
        return ""


def header():
    cpu = ""
    for line in _run(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    lines = [
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"machine: {cpu or platform.processor()} ({os.cpu_count()} CPUs), {platform.system()} "
        f"{platform.release()}",
        f"load (uptime): {_run(['uptime']).split('load average:')[-1].strip()}",
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"torch {torch.__version__ if torch else 'not installed'}"
        + (f" (threads: {torch.get_num_threads()})" if torch else ""),
    ]
    commit = _run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = _run(["git", "-C", ROOT, "status", "--short", "--", "minigrad"])
    if commit:
        lines.append(f"minigrad: {commit}" + (" + uncommitted changes in minigrad/: "
                                             + ", ".join(l.split()[-1] for l in dirty.splitlines())
                                             if dirty else " (clean)"))
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "MKL_"))}
    lines.append("env: " + (", ".join(f"{k}={v}" for k, v in sorted(env.items())) or
                            "no OPENBLAS_*/OMP_*/MKL_* set"))
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


def _chain_passes(lib, n, reps):
    """``reps`` forward passes of the 300-op chain (``y * 1.0001``, ``y + 0.5``) with
    their losses, and a function that runs the backward of one."""
    x = lib.tensor(np.linspace(0.0, 1.0, 16, dtype=np.float32), requires_grad=True)

    def forward():
        y = x
        for i in range(n):
            y = y * 1.0001 if i % 2 == 0 else y + 0.5
        return y.sum()
    return forward, lambda loss: loss.backward()


def _cpu_per_node(fn, nodes, reps):
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
        forward, backward = _chain_passes(lib, n, reps)
        losses = [forward() for _ in range(reps)]
        fwd = _cpu_per_node(forward, n + 1, reps)
        bwd = _cpu_per_node(lambda: backward(losses.pop()), n + 2, reps)
        print(f"| {name} | {fwd:.1f} | {bwd:.1f} | {fwd + bwd:.1f} |")
        split[name] = (fwd, bwd)
    fwd, bwd = split["minigrad"]
    forward, backward = _chain_passes(mg, n, reps)
    losses = [forward() for _ in range(reps)]
    for phase, run, per_node, nodes in (("forward", lambda: [forward() for _ in range(reps)], fwd, n + 1),
                                        ("backward", lambda: [backward(loss) for loss in losses], bwd, n + 2)):
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


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="5 rounds of ~0.02 s samples")
    p.add_argument("--only", help="comma-separated workload names (see --list)")
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 11, quick 5)")
    p.add_argument("--sample", type=float, help="seconds per sample (default 0.1, quick 0.02)")
    p.add_argument("--profile", metavar="NAME", help="cProfile the minigrad side of NAME")
    p.add_argument("--budget", action="store_true",
                   help="per-node CPU budget of forward and backward on the 300-op chain")
    p.add_argument("--where", metavar="NAME",
                   help="split one minigrad step of NAME: outside backward, each node type, "
                        "the engine, page faults")
    p.add_argument("--list", action="store_true", help="list workloads and exit")
    args = p.parse_args(argv)

    if args.list:
        for w in WORKLOADS:
            print(f"{w.name:24} {w.title}")
        print(f"{MEMORY:24} peak traced memory: checkpointing, optimizer in backward")
        return
    if torch is not None:
        torch.set_num_threads(1)
    limiter = threadpoolctl.threadpool_limits(1, user_api="blas") if threadpoolctl else None
    rounds = args.rounds or (5 if args.quick else 11)
    sample = args.sample or (0.02 if args.quick else 0.1)

    if args.profile:
        profile(args.profile, max(sample * 10, 1.0))
        return
    if args.budget:
        budget()
        return
    if args.where:
        where_time_goes(args.where)
        return

    names = args.only.split(",") if args.only else [w.name for w in WORKLOADS] + [MEMORY]
    unknown = [n for n in names if n not in BY_NAME and n != MEMORY]
    if unknown:
        sys.exit(f"unknown workload(s) {unknown}; --list shows them")

    print("## minigrad benchmark\n")
    for line in header():
        print(f"- {line}")
    print(f"- timing: {rounds} interleaved rounds, ~{sample:g} s per sample, order rotated "
          f"every round; median (min) per call\n", flush=True)

    results = []
    for name in names:
        if name == MEMORY:
            continue
        w = BY_NAME[name]
        sides = w.build()
        note = check_agreement(w, sides)
        sides = {k: v for k, v in sides.items() if not k.startswith("_")}
        times = time_interleaved(sides, rounds, sample)
        results.append((w, times, note))
        print(f"  measured {name}", file=sys.stderr, flush=True)
    if results:
        print(results_table(results))
        print(derived_table(results))
    if MEMORY in names:
        print()
        print(memory_table(batches=(64,) if args.quick else (64, 512)))
    print(f"\n- load at the end: {_run(['uptime']).split('load average:')[-1].strip()}")
    if limiter is not None:
        limiter.restore_original_limits()


if __name__ == "__main__":
    main()
