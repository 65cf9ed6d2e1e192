"""The benchmark's workloads: each is built once per framework (minigrad, PyTorch CPU,
hand-written numpy) from the same initial values, as ``{framework: step}`` where
``step()`` does one full iteration and returns the loss (or None).

The minigrad and torch sides of a workload are one function, ``make(lib)``, called with
each library: the code timed is the same text, as a user would write it for either.
The numpy side is written by hand (forward, backward and update) as the floor.
See README.md for what each workload measures and its goal.
"""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:                 # run from a checkout without installing
    sys.path.insert(0, ROOT)

import minigrad as mg                    # noqa: E402
import minigrad.models                   # noqa: E402,F401  (not imported by minigrad itself)
import minigrad.optim                    # noqa: E402,F401

try:
    import torch                         # noqa: E402
except ImportError:                      # the table then shows only minigrad and numpy
    torch = None

FRAMEWORKS = ("minigrad", "torch", "numpy")
LR = 0.01
MEMORY = "memory"          # the memory workload is not timed: its own table (timing.measure_memory)


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


def item(loss):
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
# workloads


class Workload:
    def __init__(self, name, title, build, goal=None, nodes=None, check=True, note=""):
        self.name, self.title, self.build = name, title, build
        self.goal = goal or {}           # {"torch": 1.0, "numpy": 1.25}: max allowed ratio
        self.nodes = nodes               # graph nodes per step, for the per-node column
        self.check = check
        self.note = note


def sgd_step(lib, model, x, y):
    """One training step of ``model`` in ``lib`` (minigrad or torch): ``zero_grad``,
    cross-entropy, backward, SGD step, as a callable returning the loss. ``x`` and ``y``
    are numpy arrays, copied into the library's tensors."""
    opt = lib.optim.SGD(model.parameters(), lr=LR)
    tx, ty = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())

    def step():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(tx), ty)
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

        def make(lib):
            act_layer = lib.nn.ReLU if act == "relu" else lib.nn.Tanh
            return lib.nn.Sequential(lib.nn.Linear(784, 256), act_layer(), lib.nn.Linear(256, 256),
                                     act_layer(), lib.nn.Linear(256, 10))

        mg.manual_seed(0)
        model = make(mg)
        sides["minigrad"] = sgd_step(mg, model, x, y)
        init = [np.array(p.detach().numpy(), copy=True) for p in model.parameters()]
        if torch is not None:
            torch_model = make(torch)
            _copy_params(model.parameters(), torch_model.parameters())
            sides["torch"] = sgd_step(torch, torch_model, x, y)

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


def inside_noop_dispatch_mode(build):
    """The same workload with every step inside a ``TorchDispatchMode`` that only
    re-dispatches (``func(*args, **kwargs)``), on minigrad and on torch: what a mode costs
    per op. (With no mode active, ``apply_op`` pays one check of an empty list.)"""
    from minigrad.utils._python_dispatch import TorchDispatchMode as MgMode

    def noop_mode(base):
        class NoopMode(base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))
        return NoopMode

    def wrapped():
        sides = build()
        modes = {"minigrad": noop_mode(MgMode)}
        if torch is not None:
            from torch.utils._python_dispatch import TorchDispatchMode as TorchMode
            modes["torch"] = noop_mode(TorchMode)
        for framework, mode in modes.items():
            def step(plain_step=sides[framework], mode=mode):
                with mode():
                    return plain_step()
            sides[framework] = step
        sides.pop("numpy", None)
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
    sides["minigrad"] = sgd_step(mg, model, x, y)
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
        sides["torch"] = sgd_step(torch, tmodel, x, y)
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
             goal={"torch": 1.0, "numpy": 1.3}),
    Workload("mlp_tanh", "MLP step 784-256-256-10 Tanh, b=64", build_mlp("tanh"),
             goal={"torch": 1.0, "numpy": 1.3}),
    Workload("mlp_raw", "MLP of raw matmuls, ReLU+Tanh, cross-entropy, b=64", build_mlp_raw(),
             goal={"torch": 1.0, "numpy": 1.3}),
    Workload("mlp_raw_f32math", "the same, set_exact_float32_math(False)",
             with_float32_kernels(build_mlp_raw()), goal={"torch": 1.0, "numpy": 1.3}),
    Workload("chain300", "chain of 300 elementwise ops, fwd+bwd", build_chain(300),
             goal={"torch": 1.75}, nodes=300),
    Workload("chain300_tanh_exp", "chain of 300 ops: mul, tanh, add, exp", build_chain_transcendental(300),
             goal={"torch": 1.75}, nodes=300),
    Workload("chain300_tanh_exp_f32math", "the same, set_exact_float32_math(False)",
             with_float32_kernels(build_chain_transcendental(300)), goal={"torch": 1.75}, nodes=300),
    Workload("chain300_hooks", "same chain, a tensor hook on every node",
             build_chain(300, "each"), nodes=300),
    Workload("chain300_hooks_removed", "same chain, hook registered then removed",
             build_chain(300, "removed"), nodes=300),
    Workload("chain300_dispatch_noop", "same chain, inside a no-op TorchDispatchMode",
             inside_noop_dispatch_mode(build_chain(300)), nodes=300),
    Workload("cnn", "CNN step (make_cnn) on 8x8 digits, b=64", build_cnn, goal={"numpy": 1.15}),
    Workload("chain30", "scaling: chain of 30", build_chain(30), nodes=30),
    Workload("chain3000", "scaling: chain of 3000", build_chain(3000), nodes=3000),
]
BY_NAME = {w.name: w for w in WORKLOADS}




def chain_passes(lib, n, reps):
    """``reps`` forward passes of the 300-op chain (``y * 1.0001``, ``y + 0.5``) with
    their losses, and a function that runs the backward of one."""
    x = lib.tensor(np.linspace(0.0, 1.0, 16, dtype=np.float32), requires_grad=True)

    def forward():
        y = x
        for i in range(n):
            y = y * 1.0001 if i % 2 == 0 else y + 0.5
        return y.sum()
    return forward, lambda loss: loss.backward()


def deep_mlp(width, depth):
    mg.manual_seed(0)
    blocks = [mg.nn.Sequential(mg.nn.Linear(width, width), mg.nn.ReLU()) for _ in range(depth)]
    return mg.nn.Sequential(*blocks)


def checkpointed_forward(model, x, mode):
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
