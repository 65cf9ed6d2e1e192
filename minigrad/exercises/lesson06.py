"""Checks for lesson 06 (saved-tensor hooks).

The expected gradients come from minigrad's own backward without hooks; what a graph
holds between forward and backward is read from its saved values (``SavedTensor``); the
prediction exercise runs its scenario on minigrad and records which pair packed and
unpacked each value.

``check_checkpoint`` wants a checkpoint written from scratch: an answer that runs
minigrad's ``checkpoint`` (its non-reentrant ``_Frame`` or reentrant
``CheckpointFunction``, however it was reached) or a function named ``checkpoint`` in the
learner's notebook (section 5's helper) is refused (``watch_calls``).
"""

import types

import numpy as np

from .. import grad_mode
from .._creation import (get_rng_state as _get_rng_state, manual_seed as _manual_seed,
                         rand as _rand, set_rng_state as _set_rng_state, tensor as _tensor)
from .._tensor import Tensor as _Tensor
from ..autograd.graph import saved_tensors_hooks as _saved_tensors_hooks
from ..nn import functional as F
from ..utils import checkpoint as _checkpoint_module
from ..viz import graph_nodes as _graph_nodes
from . import (Result as _Result,
               compare_values as _compare_values, check_prediction as _check_prediction,
               run_check as _run_check, watch_calls as _watch_calls)

__all__ = ["check_predict_nested", "check_half_precision_hooks", "check_checkpoint"]


# --- exercise 1: which pair packs and unpacks ------------------------------------------------
def _nested_trace():
    """The scenario of section 2 (pairs tagged "outer", "inner", "during backward"):
    the tags of the pack calls and of the unpack calls, in order."""
    packs, unpacks = [], []

    def tagged(tag):
        return (lambda t: packs.append(tag) or (tag, t.detach()),
                lambda p: unpacks.append(p[0]) or p[1])

    x = _tensor([1.0, 2.0], requires_grad=True)
    with _saved_tensors_hooks(*tagged("outer")):
        y = x.sin()
        with _saved_tensors_hooks(*tagged("inner")):
            z = y * y
            z2 = z * 3.0
        w = z2.exp()
    with _saved_tensors_hooks(*tagged("during backward")):
        w.sum().backward()
    return packs, unpacks


def check_predict_nested(predict_nested):
    """``predict_nested()`` returns ``(packs, unpacks)``: the tags of the pairs whose pack
    and unpack run, in order, in section 2's scenario. It must predict: running a backward
    pass is rejected."""
    def judge(got):
        packs, unpacks = _nested_trace()
        if not (isinstance(got, (tuple, list)) and len(got) == 2
                and all(isinstance(g, (tuple, list)) for g in got)):
            return _Result(False, "return two lists of tags, (packs, unpacks), e.g. "
                                 f"([\"outer\"], [\"outer\"]); you returned {got!r}.")
        for what, mine, right in (("the pack calls", got[0], packs),
                                  ("the unpack calls", got[1], unpacks)):
            mine = list(mine)
            if mine == right:
                continue
            why = []
            if "during backward" in mine:
                why.append("the pair is stored with each saved value when it is packed, in the "
                           "forward pass: the context around backward() is never used")
            if len(mine) != len(right):
                why.append(f"you list {len(mine)} calls: count the values saved. sin saves x, "
                           "y * y saves y twice (self and other), z * 3.0 nothing (its gradient "
                           "is 3.0 * grad: no tensor needed, and a Python scalar is never "
                           "packed), exp its result; each is packed by one pair only, the "
                           "innermost active when the op runs")
            elif what == "the unpack calls" and sorted(mine) == sorted(right):
                why.append("backward runs the node created last first: in which order do the "
                           "nodes of sin, y * y and exp run, and which pair packed what each "
                           "of them saved?")
            elif what == "the pack calls" and sorted(mine) == sorted(right):
                why.append("pack runs during the forward pass, in the order the ops run")
            if not why:
                why.append("only the innermost pair packs a value (no chaining), and the "
                           "same pair unpacks it")
            # the first miss and why, never the right tags
            first = next((i for i, (m, r) in enumerate(zip(mine, right)) if m != r), None)
            where = (f"entry {first + 1} ({mine[first]!r}) is wrong" if first is not None else
                     f"{len(mine)} entries, {'more' if len(mine) > len(right) else 'fewer'} than "
                     "happen")
            why = "; ".join(why)
            return _Result(False, f"{what}: {where}. Why: {why}" + ("" if why.endswith("?") else "."))
        return _Result(True, f"packs {packs}, unpacks {unpacks}: the innermost pair at pack "
                            "time, whatever is active during backward.")
    return _check_prediction("predict_nested", predict_nested, "the tags", "two lists of tags",
                             "the demo after the exercise", judge)


def _nbytes(obj):
    if isinstance(obj, _Tensor):
        return obj._array.nbytes
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (bytes, bytearray)):
        return len(obj)
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(o) for o in obj)
    return 0


def _mlp(x, weights):
    h = x
    for w in weights:
        h = (h @ w).tanh()
    return h.sum()


def _weights():
    rng = np.random.default_rng(0)
    return [_tensor((rng.standard_normal((8, 8)) / 3).astype(np.float32), requires_grad=True)
            for _ in range(3)]


def _input():
    return _tensor(np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32))


def _reference_grads():
    weights = _weights()
    _mlp(_input(), weights).backward()
    return [w.grad for w in weights]


def check_half_precision_hooks(half_precision_hooks):
    """``half_precision_hooks()`` returns ``(pack, unpack)``: pack keeps a float16 copy of
    the tensor's data (half the bytes), unpack gives back a float32 tensor."""
    def body():
        pair = half_precision_hooks()
        if not (isinstance(pair, tuple) and len(pair) == 2):
            return _Result(False, f"return a tuple (pack, unpack); you returned {pair!r}.")
        pack, unpack = pair
        expected = _reference_grads()
        weights = _weights()
        packed, unpacked = [], []

        def spy(t):
            p = pack(t)
            packed.append((t._array.nbytes, p))
            return p

        def unspy(p):
            t = unpack(p)
            unpacked.append(t)
            return t
        with _saved_tensors_hooks(spy, unspy):
            loss = _mlp(_input(), weights)
        for full, p in packed:
            if isinstance(p, _Tensor) and p.element_size() == 4:
                return _Result(False, "pack returned a float32 tensor: it still holds "
                                     f"{full} bytes. What pack returns is what stays in memory "
                                     "until backward: keep the values at half the precision.")
            if _nbytes(p) * 2 != full:
                return _Result(False, f"a tensor of {full} bytes was packed into {_nbytes(p)} "
                                     f"bytes, expected {full // 2} (float16).")
        try:
            loss.backward()
        except TypeError as exc:
            if "unpack_hook" in str(exc):
                return _Result(False, f"unpack must return a Tensor: {exc}")
            raise
        half = [t for t in unpacked if isinstance(t, _Tensor) and t.element_size() != 4]
        if half:
            return _Result(False, f"unpack gave back a {half[0].dtype} tensor: backward must see the "
                                 "tensor the forward saved, a float32 one. Only what is kept in "
                                 "between may be smaller.")
        for i, (w, e) in enumerate(zip(weights, expected)):
            r = _compare_values(f"the gradient of weight {i}", w.grad, e, atol=1e-2, rtol=1e-2)
            if not r:
                return r
            if w.grad.element_size() != 4:
                return _Result(False, "unpack must give back float32 tensors.")
        return _Result(True, "half the bytes between forward and backward, and gradients within "
                            "float16 precision.")
    return _run_check("half_precision_hooks", body)




# --- exercise 3: a checkpoint with several inputs and outputs, and the RNG -------------------
def _held_bytes(root, weights):
    """Bytes the graph's saved values hold between forward and backward (weights aside)."""
    skip = {id(w._array) for w in weights}
    total = 0
    if root.grad_fn is None:
        return 0
    for node in _graph_nodes(root):
        saved = [one for s in getattr(node, "_stored", {}).values()     # a tuple: indexing's indices
                 for one in (s if isinstance(s, tuple) else (s,))]
        saved += list(getattr(node, "_packed_tensors", ()) or ())
        for s in saved:
            if s._hooked:
                total += _nbytes(s._packed)
            elif s._tensor is not None and id(s._tensor._array) not in skip:
                total += s._tensor._array.nbytes
            elif s._data is not None:
                total += s._data.nbytes
    return total


def _ready_made(checkpoint):
    """What an answer may not call, with what to tell: minigrad's checkpoint (either
    variant) and a ``checkpoint`` function in the learner's namespace (section 5's helper)."""
    module = _checkpoint_module
    minigrads = "minigrad.utils.checkpoint.checkpoint, which does all the work for you"
    ready_made = {module._Frame.__init__: minigrads, module.CheckpointFunction.forward: minigrads}
    namespace = getattr(checkpoint, "__globals__", None)
    helper = namespace.get("checkpoint") if isinstance(namespace, dict) else None
    if callable(helper) and hasattr(helper, "__code__") and helper not in (checkpoint, module.checkpoint):
        ready_made[helper] = "the checkpoint helper of section 5, which takes one input and no RNG state"
    return ready_made


def _ckpt_weights(n):
    rng = np.random.default_rng(3)
    return [_tensor((rng.standard_normal((8, 8)) / 3).astype(np.float32), requires_grad=True)
            for _ in range(n)]


def _ckpt_input(seed, requires_grad=False):
    return _tensor(np.random.default_rng(seed).standard_normal((4, 8)).astype(np.float32),
                  requires_grad=requires_grad)


class _Scenario:
    """One graph run twice: without checkpoint (the expectation) and through the learner's
    checkpoint. ``fn`` counts its calls and records the grad mode of each."""

    def __init__(self, name, block, n_weights, inputs, loss, rng):
        self.name, self.block, self.n_weights = name, block, n_weights
        self.inputs, self.loss, self.rng = inputs, loss, rng

    def run(self, checkpoint=None):
        weights = _ckpt_weights(self.n_weights)
        inputs = self.inputs()
        calls, reused = self.calls, self.reused = [], []

        def fn(*args):
            calls.append(grad_mode.is_grad_enabled())
            reused.append(any(a is t for a in args for t in inputs))
            return self.block(weights, *args)

        _manual_seed(7)
        out = fn(*inputs) if checkpoint is None else checkpoint(fn, *inputs)
        after_forward = len(calls)
        outputs = out if isinstance(out, tuple) else (out,)
        fits = (len(outputs) == self.loss.__code__.co_argcount
                and all(isinstance(o, _Tensor) for o in outputs))
        loss = self.loss(*outputs) if fits else None
        held = 0 if loss is None else _held_bytes(loss, weights)
        between = _rand(2) if self.rng else None          # drawn between forward and backward
        if loss is not None:
            loss.backward()
        after = _rand(3) if self.rng else None
        leaves = weights + [t for t in inputs if t.requires_grad]
        return types.SimpleNamespace(out=out, held=held, calls=calls, reused=reused,
                                     after_forward=after_forward,
                                     between=between, after=after,
                                     grads=[t.grad for t in leaves])


def _mlp_block(weights, h):
    for w in weights:
        h = (h @ w).tanh()
    return h.sum()


def _two_outputs_block(weights, h, g):
    a = (h @ weights[0]).tanh()
    b = (a * g).sigmoid() @ weights[1]
    return a, b


def _dropout_block(weights, h):
    h = (h @ weights[0]).tanh()
    h = F.dropout(h, 0.5, training=True)
    return (h @ weights[1]).tanh().sum()


_CKPT_SCENARIOS = [
    _Scenario("fn(x), one output (a 3-layer MLP)", _mlp_block, 3,
              lambda: (_ckpt_input(1),), lambda out: out, rng=False),
    _Scenario("fn(x, g) with two inputs that require grad and two outputs (a, b)",
              _two_outputs_block, 2,
              lambda: (_ckpt_input(1, True), _ckpt_input(2, True)),
              lambda a, b: a.sum() + b.sum(), rng=False),
    _Scenario("fn(x) with dropout inside, and a random draw between forward and backward",
              _dropout_block, 2, lambda: (_ckpt_input(1),), lambda out: out, rng=True),
]


def _compare_checkpoint(s, want, got):
    """The first difference between the run without checkpoint and the learner's."""
    where = f"on {s.name}"
    want_out = want.out if isinstance(want.out, tuple) else (want.out,)
    got_out = got.out if isinstance(got.out, tuple) else (got.out,)
    if isinstance(want.out, tuple) != isinstance(got.out, tuple) or len(want_out) != len(got_out):
        return _Result(False, f"{where} your checkpoint returned {type(got.out).__name__}, expected "
                             f"what fn returns ({type(want.out).__name__} of {len(want_out)}): "
                             "return fn's result as it is.")
    for i, (g, e) in enumerate(zip(got_out, want_out)):
        if not isinstance(g, _Tensor):
            return _Result(False, f"{where} output {i} is {type(g).__name__}, expected a Tensor.")
        if not np.allclose(g._array, e._array, atol=1e-5):
            more = (" With dropout inside fn, the forward must draw the same numbers as fn "
                    "without checkpoint: don't re-seed (manual_seed), take the state with "
                    "get_rng_state() and leave the generator alone in forward." if s.rng else "")
            return _Result(False, f"{where} output {i} differs from fn's own result.{more}")
    if got.after_forward != 1:
        return _Result(False, f"{where} fn ran {got.after_forward} times during the forward pass, "
                             "expected 1.")
    if got.held > 0:
        return _Result(False, f"{where} the graph holds {got.held} bytes of saved activations "
                             "between forward and backward: pack should keep only a small key "
                             "(an index), not the tensor.")
    if s.rng and not np.allclose(got.between._array, want.between._array):
        return _Result(False, f"{where} a random draw right after your checkpoint's forward gave "
                             "other numbers than without checkpoint: the forward must leave the "
                             "generator where fn left it.")
    recomputes = got.calls[1:]
    if not recomputes:
        return _Result(False, f"{where} fn was never recomputed in backward: unpack must run fn "
                             "again to rebuild the saved tensors.")
    if len(recomputes) > 1:
        return _Result(False, f"{where} fn was recomputed {len(recomputes)} times in one backward, "
                             "expected once: keep the recomputed tensors after the first unpack "
                             "and serve the other unpacks from them.")
    if not recomputes[0]:
        return _Result(False, f"{where} fn was recomputed with grad mode off: recompute under "
                             "enable_grad(): backward runs with grad mode off, and without a "
                             "graph no op saves anything.")
    if got.reused[1]:
        return _Result(False, f"{where} fn was recomputed on the forward's own input tensors: the "
                             "recomputed ops then join the forward's graph. Recompute from new "
                             "tensors cut off from it, each set to require grad like its original.")
    for i, (g, e) in enumerate(zip(got.grads, want.grads)):
        r = _compare_values(f"{where} gradient {i} (weights first, then the inputs that require "
                           "grad)", g, e)
        if not r:
            if s.rng:
                return _Result(False, f"{r.message} The recompute drew another dropout mask: "
                                     "take get_rng_state() before the first forward and "
                                     "set_rng_state() it before recomputing.")
            if e is not None and g is not None and len(want.grads) > s.n_weights:
                return _Result(False, f"{r.message} Recompute from inputs detached and set to "
                                     "require grad like the originals "
                                     "(t.detach().requires_grad_(t.requires_grad)), each of "
                                     "them: else the ops save other tensors.")
            return r
    if s.rng and not np.allclose(got.after._array, want.after._array):
        return _Result(False, f"{where} the gradients are right, but after backward the generator "
                             "is not where it would be without checkpoint: the recompute used "
                             "up random numbers. Take get_rng_state() when unpack starts and "
                             "set it back after recomputing (PyTorch forks the RNG there).")
    return None


def check_checkpoint(checkpoint):
    """``checkpoint(fn, *args)`` returns ``fn(*args)`` (a tensor or a tuple of them) without
    keeping fn's saved activations; backward recomputes fn once, with the same random
    numbers, and leaves the generator as it would be without checkpoint. Calling minigrad's
    checkpoint or section 5's helper is refused."""
    def body():
        state = _get_rng_state()
        try:
            with _watch_calls(_ready_made(checkpoint)) as used:
                result = _run_checkpoint(checkpoint)
        except NotImplementedError:
            raise
        except Exception:
            if not used:         # the learner's own error: run_check reports it
                raise
        finally:
            _set_rng_state(state)
        if used:
            return _Result(False, f"your checkpoint calls {used[0]}: the exercise is to write the "
                                 "pack/unpack pair yourself.")
        return result
    return _run_check("checkpoint", body)


def _run_checkpoint(checkpoint):
    for s in _CKPT_SCENARIOS:
        want = s.run()
        try:
            got = s.run(checkpoint)
        except NotImplementedError:          # a RuntimeError too: the stub
            raise
        except TypeError as exc:
            if f"{getattr(checkpoint, '__name__', '')}() takes" not in str(exc):
                raise
            return _Result(False, f"on {s.name} calling your checkpoint raised TypeError ({exc}): "
                                 "it must take fn and any number of inputs, "
                                 "my_checkpoint(fn, *args), and run fn(*args).")
        except IndexError as exc:
            if len(s.calls) > 1 and s.calls[1]:      # recomputed with grad mode on
                return _Result(False, f"on {s.name} your code raised IndexError ({exc}): the "
                                     "recompute saved fewer tensors than the forward. Recompute "
                                     "from inputs detached and set to require grad like the "
                                     "originals (t.detach().requires_grad_(t.requires_grad)): "
                                     "an op saves what its inputs' gradients need.")
            return _Result(False, f"on {s.name} your code raised IndexError ({exc}): the recompute "
                                 "saved fewer tensors than the forward. Recompute under "
                                 "enable_grad(): backward runs with grad mode off, so no op "
                                 "saves anything there.")
        except RuntimeError as exc:
            return _Result(False, f"on {s.name} backward raised RuntimeError: {exc}. If it comes "
                                 "from your unpack: recompute under enable_grad() (backward runs "
                                 "with grad mode off), from inputs detached and set to require "
                                 "grad like the originals.")
        miss = _compare_checkpoint(s, want, got)
        if miss is not None:
            return miss
    return _Result(True, "nothing held between forward and backward, one recomputation with "
                        "the same dropout mask, the generator left where it was, and the same "
                        "outputs and gradients for several inputs and outputs.")
