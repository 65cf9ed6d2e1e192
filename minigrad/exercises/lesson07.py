"""Checks for lesson 07 (graph callbacks).

* ``check_callback_order``: the learner predicts the events of section 1's pass; the
  check runs that pass on minigrad's real engine and compares, explaining the first miss.
* ``check_unused_parameters``: small graphs whose answers are known by construction
  (which parameters a loss uses).
* ``check_bucketed_all_reduce``: the learner's post-accumulate hooks fill buckets with a
  byte limit; the expected buckets are computed from the order in which a plain pass (with
  the check's own hooks) really made the gradients ready.

Checks print one verdict and never raise.
"""
import numpy as np

from .. import _creation, autograd as _autograd
from .._creation import tensor as _tensor
from . import (Result as _Result, hook_queuing_callbacks as _hook_queuing_callbacks,
               unless_hooks_left as _unless_hooks_left,
               judge_predicted_order as _judge_predicted_order,
               judge_returned_handles as _judge_returned_handles, run_check as _run_check)

__all__ = ["check_callback_order", "check_unused_parameters", "check_bucketed_all_reduce",
           "CALLBACK_EVENTS"]

#: the names the learner may use in the prediction of section 1's pass
CALLBACK_EVENTS = ("y hook", "x post-accumulate", "cb1", "cb2", "cb3", "backward returned")


def _section1_pass():
    """Section 1's pass, logging the names of CALLBACK_EVENTS in the order they happen."""
    log = []
    x = _tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(_hook_queuing_callbacks(log, "y hook", lambda: "cb1", "cb2"))
    x.register_post_accumulate_grad_hook(lambda p: log.append("x post-accumulate"))
    y.sum().backward()
    log.append("backward returned")
    return log


def _explain_order(got, want):
    """Why the first difference between two orders of CALLBACK_EVENTS is what it is."""
    pos = {name: i for i, name in enumerate(got)}
    if "cb2" in pos and "cb3" in pos and pos["cb2"] < pos["cb3"]:
        return ("cb2 is queued by cb1 while the callbacks are already running: the queue is "
                "first in, first out, so cb2 goes behind cb3, which y's hook queued earlier.")
    if "cb3" in pos and "cb1" in pos and pos["cb3"] < pos["cb1"]:
        return "callbacks run in the order they were queued: y's hook queued cb1 before cb3."
    callbacks = [pos[c] for c in ("cb1", "cb2", "cb3") if c in pos]
    if callbacks and "x post-accumulate" in pos and min(callbacks) < pos["x post-accumulate"]:
        return ("a final callback runs after the last node of the pass, so after x's "
                "AccumulateGrad and its post-accumulate hook: queuing it from y's hook only "
                "puts it on the pass's list.")
    if callbacks and "backward returned" in pos and max(callbacks) > pos["backward returned"]:
        return "the callbacks run inside backward(): it returns only after the last one."
    if "y hook" in pos and pos["y hook"] != 0:
        return ("y's tensor hook runs first: y's gradient is computed before anything below it "
                "(x's AccumulateGrad) can run.")
    return None


def check_callback_order(predict_callback_order):
    """``predict_callback_order()`` returns the events of section 1's pass in the order
    they happen, using the names of ``CALLBACK_EVENTS``. It must predict, not run."""
    def body():
        return _judge_predicted_order(
            predict_callback_order, CALLBACK_EVENTS, _section1_pass, see="section 1's cell",
            each_once="each event happens once in this pass (cb1 is queued once, and queues "
                      "cb2 once).",
            right="Callbacks run after the whole pass, first in first out, and a callback "
                  "queued by a callback goes to the back of the queue.",
            explain=_explain_order)
    return _run_check("predict_callback_order", body)


def check_unused_parameters(unused_parameters):
    """``unused_parameters(params, loss)`` runs ``loss.backward()`` and returns the sorted
    indices of the parameters that got no gradient in that pass (DDP's
    ``find_unused_parameters``), in one pass and leaving the accumulated ``.grad`` as
    ``backward()`` leaves it."""
    def body():
        params = [_tensor([1.0, 2.0], requires_grad=True) for _ in range(5)]
        for p in params:                       # gradients left over from an earlier pass
            (p * 2).sum().backward()
        a, b, c, d, e = params
        cases = [("(a * b + d).sum()", lambda: (a * b + d).sum(), [2, 4]),
                 ("(c * e).sum()", lambda: (c * e).sum(), [0, 1, 3]),
                 ("(a * 0 + b).sum() (a gets a zero gradient: still a gradient)",
                  lambda: (a * 0 + b).sum(), [2, 3, 4]),
                 ("(a + b + c + d + e).sum()", lambda: (a + b + c + d + e).sum(), [])]
        for text, make, expected in cases:
            # what one loss.backward() adds to each .grad (None: nothing)
            added = _autograd.grad(make(), params, allow_unused=True)
            want_grads = [p.grad.numpy() + (0 if g is None else g.numpy())
                          for p, g in zip(params, added)]
            loss, passes = make(), []
            loss.register_hook(lambda g: passes.append(1))
            got = unused_parameters(params, loss)
            if got is None:
                return _Result(False, f"for loss = {text} you returned None; return a list of "
                                     "indices.")
            got = sorted(int(i) for i in got)
            if got != expected:
                hint = ""
                if not got and expected:
                    hint = (" Every .grad here already held a gradient from an earlier pass, so "
                            "`p.grad is None` finds nothing: record which post-accumulate "
                            "hooks fired in THIS pass.")
                return _Result(False, f"for loss = {text} you returned {got}, expected "
                                     f"{expected}.{hint}")
            if len(passes) != 1:
                return _Result(False, f"for loss = {text} your function ran {len(passes)} backward "
                                     "passes over the loss: run loss.backward() once and learn in "
                                     "that pass which parameters it reaches.")
            changed = [i for i, (p, w) in enumerate(zip(params, want_grads))
                       if p.grad is None or not np.allclose(p.grad.numpy(), w)]
            if changed:
                return _Result(False, f"for loss = {text} the .grad of parameter {changed[0]} is not "
                                     "what loss.backward() leaves there (the earlier passes' "
                                     "gradient plus this one's): don't reset .grad to find the "
                                     "unused parameters, a hook tells you which ones this pass "
                                     "reaches.")
        left = sum(len(p._post_accumulate_grad_hooks or {}) for p in params)
        return _unless_hooks_left(left, "post-accumulate hook(s) are",
                                  "remove them (with their handles) before returning",
                                  _Result(True, "the unused parameters of each pass, whatever "
                                                ".grad held before."))
    return _run_check("unused_parameters", body)


# --- bucketed all-reduce -------------------------------------------------------------------------
_NAMES = ["W1", "b1", "W2", "b2", "W3", "b3", "head"]


def _bucket_model(with_unused=False):
    """A fresh 3-layer network's parameters and a function that builds its loss. With
    ``with_unused`` a 7th parameter (``head``) is in the list but not in the loss."""
    _creation.manual_seed(0)
    params = []
    for n_in, n_out in [(4, 16), (16, 16), (16, 1)]:
        params.append((_creation.randn(n_in, n_out) * n_in ** -0.5).requires_grad_())
        params.append(_creation.zeros(n_out, requires_grad=True))
    if with_unused:
        params.append(_creation.randn(16, 3).requires_grad_())
    x, y = _creation.randn(8, 4), _creation.randn(8, 1)

    def loss():
        h = x
        for i in range(0, 6, 2):
            h = h @ params[i] + params[i + 1]
            if i < 4:
                h = h.tanh()
        return ((h - y) ** 2).mean()
    return params, loss


def _ready_order(with_unused):
    """(indices in the order their gradients became ready, their byte sizes), from a
    plain pass with the check's own post-accumulate hooks."""
    params, loss = _bucket_model(with_unused)
    order = []
    handles = [p.register_post_accumulate_grad_hook(lambda p, i=i: order.append(i))
               for i, p in enumerate(params)]
    loss().backward()
    for h in handles:
        h.remove()
    return order, {i: params[i].grad.numel() * params[i].grad.element_size() for i in order}


def _expected_flushes(order, sizes, limit):
    """[(bucket, how many gradients were ready when it was flushed)]: a bucket is flushed
    from the hook of the gradient that brings it to ``limit`` bytes (that gradient's own
    hook has run, the check's hook for it has not yet), the rest from the final callback."""
    flushes, bucket, nbytes = [], [], 0
    for k, i in enumerate(order):
        bucket.append(i)
        nbytes += sizes[i]
        if nbytes >= limit:
            flushes.append((bucket, k))
            bucket, nbytes = [], 0
    if bucket:
        flushes.append((bucket, len(order)))
    return flushes


def _names(bucket):
    return "[" + ", ".join(_NAMES[i] if isinstance(i, int) and 0 <= i < len(_NAMES) else repr(i)
                           for i in bucket) + "]"


def _describe(flushes, order):
    """Each flush and when it happened: in the post-accumulate hook of which gradient (the
    check's hook for it had not run yet), or after every hook of the pass."""
    def when(n):
        return f"in {_NAMES[order[n]]}'s hook" if n < len(order) else "after the last hook"
    return "; ".join(f"{_names(b)} {when(n)}" for b, n in flushes) or "no flush"


def check_bucketed_all_reduce(attach_bucketed_all_reduce):
    """``attach_bucketed_all_reduce(params, limit_bytes, flush)`` registers hooks so that,
    in every backward pass, the parameters are put in a bucket in the order their
    gradients become ready, ``flush(bucket)`` (a list of indices into ``params``) is called
    as soon as the bucket holds ``limit_bytes`` bytes of gradients or more, and the last,
    partial bucket is flushed from a final callback. Returns the list of handles."""
    def body():
        scenarios = [("limit 1000 bytes", 1000, False), ("limit 100 bytes", 100, False),
                     ("limit 1 byte (one gradient per bucket)", 1, False),
                     ("limit 10**9 bytes (one bucket)", 10 ** 9, False),
                     ("limit 1000 bytes, a 7th parameter the loss never uses", 1000, True),
                     ("a limit the first two gradients reach exactly", None, False)]
        for label, limit, with_unused in scenarios:
            order, sizes = _ready_order(with_unused)
            if limit is None:           # the first bucket holds exactly limit bytes: >=, not >
                limit = sizes[order[0]] + sizes[order[1]]
                label = f"limit {limit} bytes, {label}"
            want = _expected_flushes(order, sizes, limit)
            params, loss = _bucket_model(with_unused)
            flushes, ready = [], []

            def flush(bucket):
                flushes.append((list(bucket), len(ready)))
            handles = attach_bucketed_all_reduce(params, limit, flush)
            # the check's own hooks, registered after yours: they count the ready gradients
            mine = [p.register_post_accumulate_grad_hook(lambda p, i=i: ready.append(i))
                    for i, p in enumerate(params)]
            for pass_nr in (1, 2):
                flushes.clear()
                ready.clear()
                for p in params:
                    p.grad = None
                loss().backward()
                got = [([int(i) for i in b], n) for b, n in flushes]
                if got == want:
                    continue
                where = f"{label}, backward pass {pass_nr}"
                advice = _bucket_advice(got, want, order, sizes, limit, pass_nr)
                return _Result(False, f"{where}: your flushes were {_describe(got, order)}; expected "
                                     f"{_describe(want, order)} (gradients become ready in the order "
                                     f"{_names(order)}). {advice}")
            for h in mine:
                h.remove()

            def flushes_again():
                flushes.clear()
                loss().backward()
                return bool(flushes)
            r = _judge_returned_handles(
                handles, flushes_again,
                not_handles="the buckets are right; return the list of the handles of every "
                            f"hook you registered (you returned {handles!r}).",
                still_active="after removing every returned handle, a bucket was still flushed: "
                             "return the handles of all your hooks.")
            if not r:
                return r
        return _Result(True, "buckets filled in the order gradients became ready, flushed at the "
                            "byte limit during backward, the last one from a final callback, "
                            "pass after pass.")
    return _run_check("attach_bucketed_all_reduce", body)


def _bucket_advice(got, want, order, sizes, limit, pass_nr):
    got_buckets, want_buckets = [b for b, _ in got], [b for b, _ in want]
    if any(not b for b in got_buckets):
        return ("You flushed an empty bucket: when the last bucket was just flushed at the limit, "
                "the final callback has nothing left to send.")
    if pass_nr == 2:
        return ("The first pass was right, so some state survived it: after the final callback, "
                "start the next pass with an empty bucket, zero bytes, and no callback queued.")
    if got_buckets == want_buckets:
        counts = [n for _, n in got]
        if counts[-1] == len(order) - 1 and want[-1][1] == len(order):
            return ("The buckets are right, but the last one was flushed inside the last "
                    "post-accumulate hook, before the pass was over. Flush it from a final "
                    "callback (queue_callback), which runs after every hook of the pass.")
        late = [i for i, ((_, g), (_, w)) in enumerate(zip(got, want)) if g > w]
        if late:
            return (f"The buckets are right, but bucket {late[0] + 1} was flushed late: flush it "
                    "from the hook of the gradient that makes it reach the limit, so its "
                    "all-reduce overlaps the rest of backward.")
        return "The buckets are right but were flushed at the wrong moments."
    if not got:
        return ("Nothing was flushed: register a post-accumulate hook on every parameter, and "
                "queue a final callback (queue_callback) that flushes the last bucket.")
    flat = [i for b in got_buckets for i in b]
    if [sorted(b) for b in got_buckets] == [sorted(b) for b in want_buckets] or \
            (sorted(flat) == sorted(order) and flat == sorted(order)):
        return ("Your buckets hold their indices in another order: list them in the order the "
                "gradients become ready (append the index in the post-accumulate hook), not in "
                "the order of `params`.")
    if len(flat) < len(order) and flat == order[:len(flat)]:
        return ("The gradients that came after your last flush were never sent: the last, "
                "partial bucket must be flushed by a final callback (queue_callback). A count "
                "of ready parameters never reaches its total when a parameter is unused.")
    nbytes = [sum(sizes[i] for i in b) for b in got_buckets if all(i in sizes for i in b)]
    if nbytes and len(got_buckets) > len(want_buckets):
        return (f"Your buckets hold {nbytes} bytes: a bucket is flushed when it holds "
                f">= {limit} bytes, with bytes = grad.numel() * grad.element_size() "
                "(4 per float32 value), not the number of values or parameters.")
    return (f"A bucket is flushed as soon as its gradients hold >= {limit} bytes (the gradient "
            "that reaches the limit is in it); bytes = grad.numel() * grad.element_size().")
