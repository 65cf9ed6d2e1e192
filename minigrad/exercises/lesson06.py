"""Checks for lesson 06 (saved-tensor hooks).

The expected gradients come from minigrad's own backward without hooks; what a graph
holds between forward and backward is read from its saved values (``SavedTensor``).
"""
import numpy as np

from .._creation import tensor
from .._tensor import Tensor
from ..autograd.graph import saved_tensors_hooks
from ..viz import graph_nodes
from . import Result, compare_values, run_check

__all__ = ["check_count_saved", "check_half_precision_hooks", "check_checkpoint"]


def check_count_saved(count_saved):
    """``count_saved(fn, x)`` runs ``fn(x)`` under saved-tensor hooks and returns how many
    tensors were packed during that forward."""
    cases = [("lambda x: x * x", lambda x: x * x, 2),
             ("lambda x: x * 2.0", lambda x: x * 2.0, 0),
             ("lambda x: x.exp()", lambda x: x.exp(), 1),
             ("lambda x: (x * 3.0).sin().exp()", lambda x: (x * 3.0).sin().exp(), 2)]

    def body():
        for text, fn, expected in cases:
            x = tensor([0.5, -1.0, 2.0], requires_grad=True)
            got = count_saved(fn, x)
            if not isinstance(got, int):
                return Result(False, f"for {text} you returned {type(got).__name__} {got!r}; "
                                     "return an int.")
            if got != expected:
                hint = ""
                if got == 0 and expected:
                    hint = (" pack runs during the forward pass: count there (unpack only "
                            "runs in backward).")
                elif expected == 0:
                    hint = " A Python scalar is saved as a wrapped number and never packed."
                return Result(False, f"for {text} you counted {got} packed tensor(s), expected "
                                     f"{expected}.{hint}")
        return Result(True, "count_saved counts every pack call, and scalars are not packed.")
    return run_check("count_saved", body)


def _nbytes(obj):
    if isinstance(obj, Tensor):
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
    return [tensor((rng.standard_normal((8, 8)) / 3).astype(np.float32), requires_grad=True)
            for _ in range(3)]


def _input():
    return tensor(np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32))


def _reference_grads():
    weights = _weights()
    _mlp(_input(), weights).backward()
    return [w.grad for w in weights]


def check_half_precision_hooks(half_precision_hooks):
    """``half_precision_hooks()`` returns ``(pack, unpack)``: pack keeps a float16 numpy
    copy of the tensor (half the bytes), unpack gives back a float32 tensor."""
    def body():
        pair = half_precision_hooks()
        if not (isinstance(pair, tuple) and len(pair) == 2):
            return Result(False, f"return a tuple (pack, unpack); you returned {pair!r}.")
        pack, unpack = pair
        expected = _reference_grads()
        weights = _weights()
        packed = []

        def spy(t):
            p = pack(t)
            packed.append((t._array.nbytes, p))
            return p
        with saved_tensors_hooks(spy, unpack):
            loss = _mlp(_input(), weights)
        for full, p in packed:
            if isinstance(p, Tensor) and p.element_size() == 4:
                return Result(False, "pack returned a float32 tensor: it still holds "
                                     f"{full} bytes. Keep a float16 numpy array instead "
                                     "(t.detach().numpy().astype(np.float16)).")
            if _nbytes(p) * 2 != full:
                return Result(False, f"a tensor of {full} bytes was packed into {_nbytes(p)} "
                                     f"bytes, expected {full // 2} (float16).")
        try:
            loss.backward()
        except TypeError as exc:
            if "unpack_hook" in str(exc):
                return Result(False, "unpack must return a Tensor (torch.from_numpy(...) of a "
                                     f"float32 array): {exc}")
            raise
        for i, (w, e) in enumerate(zip(weights, expected)):
            r = compare_values(f"the gradient of weight {i}", w.grad, e, atol=1e-2, rtol=1e-2)
            if not r:
                return r
            if w.grad.element_size() != 4:
                return Result(False, "unpack must give back float32 (astype(np.float32)).")
        return Result(True, "half the bytes between forward and backward, and gradients within "
                            "float16 precision.")
    return run_check("half_precision_hooks", body)


def _held_bytes(root, weights):
    """Bytes the graph's saved values hold between forward and backward (weights aside)."""
    skip = {id(w._array) for w in weights}
    total = 0
    for node in graph_nodes(root):
        saved = list(getattr(node, "_stored", {}).values())
        saved += list(getattr(node, "_packed_tensors", ()) or ())
        for s in saved:
            if s._hooked:
                total += _nbytes(s._packed)
            elif s._tensor is not None and id(s._tensor._array) not in skip:
                total += s._tensor._array.nbytes
            elif s._data is not None:
                total += s._data.nbytes
    return total


def check_checkpoint(checkpoint):
    """``checkpoint(fn, x)`` returns ``fn(x)`` without keeping fn's saved activations:
    they are recomputed (once) when backward first needs them."""
    def body():
        expected = _reference_grads()
        weights = _weights()
        calls = [0]

        def block(h):
            calls[0] += 1
            return _mlp(h, weights)

        x = _input()
        out = checkpoint(block, x)
        held = _held_bytes(out, weights)
        if held > 0:
            return Result(False, f"between forward and backward the graph still holds {held} "
                                 "bytes of saved activations: pack should keep only a small key "
                                 "(an index), not the tensor.")
        if calls[0] != 1:
            return Result(False, f"fn ran {calls[0]} times during the forward pass, expected 1.")
        out.backward()
        if calls[0] == 1:
            return Result(False, "fn was never recomputed in backward: unpack must run fn "
                                 "again (with grad enabled) to rebuild the saved tensors.")
        if calls[0] > 2:
            return Result(False, f"fn was recomputed {calls[0] - 1} times in one backward, "
                                 "expected once: keep the recomputed tensors after the first "
                                 "unpack and serve the other unpacks from them.")
        for i, (w, e) in enumerate(zip(weights, expected)):
            r = compare_values(f"the gradient of weight {i}", w.grad, e)
            if not r:
                return r
        return Result(True, "nothing held between forward and backward, one recomputation, "
                            "and the same gradients.")
    return run_check("checkpoint", body)
