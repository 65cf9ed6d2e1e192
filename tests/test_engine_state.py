"""What a failure leaves behind.

API.md: "A failed backward leaves no half-changed state behind: the saved-tensor hook
stack, grad mode and any hook registrations are as they were." These tests break a
pass (or a forward, or backward()'s argument checks) and then look at every piece of
engine state a learner could trip over: grad mode, the saved-tensor hook stack, the
current graph task, queued final callbacks, and whether the next backward works.
Where PyTorch's message matters, it is compared with PyTorch's (skipped without it).
"""
import re

import numpy as np
import pytest

import minigrad
from minigrad.autograd.engine import current_graph_task_id
from minigrad.autograd.graph import (current_saved_tensors_hooks, disable_saved_tensors_hooks,
                                     saved_tensors_hooks)

CALLBACK_OUTSIDE = "Final callbacks can only be installed during backward pass."
SECOND_TIME = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")


class Boom(Exception):
    """The error our hooks raise (not a RuntimeError, so nothing can mistake it)."""


def leaf(values):
    return minigrad.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def queue_callback(fn):
    minigrad.autograd.Variable._execution_engine.queue_callback(fn)


def assert_engine_clean(grad_enabled=True):
    """Every piece of per-thread engine state is back at rest."""
    assert minigrad.is_grad_enabled() is grad_enabled
    assert current_saved_tensors_hooks() is None
    with disable_saved_tensors_hooks("entering works only when no hooks are on the stack"):
        pass
    assert current_graph_task_id() == -1
    with pytest.raises(RuntimeError, match=re.escape(CALLBACK_OUTSIDE)):
        queue_callback(lambda: None)


def assert_fresh_backward_works():
    x = leaf([0.5, -1.0, 2.0])
    (x.tanh() * x).sum().backward()
    expected = np.tanh(x.detach().numpy()) + x.detach().numpy() * (1 - np.tanh(x.detach().numpy()) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_clean_state_to_begin_with():
    assert_engine_clean()


# --- a hook that raises mid-backward ------------------------------------------------------------

def _graph_with_a_raising_hook(log):
    """x -> y = x*2 -> z = y.exp() -> loss. A hook on z queues a callback and runs
    fine; the hook on y raises after queueing another callback."""
    x = leaf([0.1, 0.2])
    y = x * 2
    z = y.exp()
    loss = z.sum()

    def z_hook(grad):
        log.append("z hook")
        queue_callback(lambda: log.append("callback from z hook"))

    def y_hook(grad):
        log.append("y hook")
        queue_callback(lambda: log.append("callback from y hook"))
        raise Boom("hook failed")

    z.register_hook(z_hook)
    y.register_hook(y_hook)
    return x, loss


def test_hook_that_raises_leaves_the_engine_usable():
    log = []
    x, loss = _graph_with_a_raising_hook(log)
    with pytest.raises(Boom, match="hook failed"):
        loss.backward()
    assert log == ["z hook", "y hook"]          # callbacks queued before the error never ran
    assert x.grad is None                       # the pass stopped before x's AccumulateGrad
    assert_engine_clean()
    assert_fresh_backward_works()
    assert log == ["z hook", "y hook"]          # ... not even at the next pass


def test_hook_that_raises_under_no_grad_restores_no_grad():
    log = []
    x, loss = _graph_with_a_raising_hook(log)
    with minigrad.no_grad():
        with pytest.raises(Boom):
            loss.backward()
        assert_engine_clean(grad_enabled=False)
    assert_engine_clean()


def test_hook_that_raises_under_create_graph_restores_grad_mode():
    modes = []
    x = leaf([1.0, 2.0])
    y = x * x

    def hook(grad):
        modes.append(minigrad.is_grad_enabled())
        raise Boom

    y.register_hook(hook)
    loss = y.sum()
    with minigrad.no_grad():
        with pytest.raises(Boom):
            with pytest.warns(UserWarning, match="create_graph=True"):
                minigrad.autograd.backward(loss, create_graph=True)
        assert_engine_clean(grad_enabled=False)
    assert modes == [True]                      # hooks run with grad mode = create_graph


def test_hook_that_raises_while_caller_has_saved_tensors_hooks():
    """The caller's own saved_tensors_hooks context is still exited by ``with``; the
    engine pushed nothing of its own that could be left behind."""
    packs = []
    x = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda t: packs.append(1) or t, lambda t: t):
        y = x.sin()
        y.register_hook(lambda g: (_ for _ in ()).throw(Boom()))
        with pytest.raises(Boom):
            y.sum().backward()
        assert current_saved_tensors_hooks() is not None     # still the caller's pair
    assert packs == [1]
    assert_engine_clean()
    assert_fresh_backward_works()


@pytest.mark.parametrize("where", ["tensor_hook", "prehook", "posthook", "post_accumulate",
                                   "callback", "node"])
def test_every_kind_of_failure_leaves_the_engine_clean(where):
    ran = []
    x = leaf([1.0, 2.0])
    y = x * 3
    if where == "tensor_hook":
        y.register_hook(lambda g: (_ for _ in ()).throw(Boom()))
    elif where == "prehook":
        y.grad_fn.register_prehook(lambda g: (_ for _ in ()).throw(Boom()))
    elif where == "posthook":
        y.grad_fn.register_hook(lambda gi, go: (_ for _ in ()).throw(Boom()))
    elif where == "post_accumulate":
        x.register_post_accumulate_grad_hook(lambda t: (_ for _ in ()).throw(Boom()))
    elif where == "callback":
        def queue(grad):
            queue_callback(lambda: ran.append("first"))
            queue_callback(lambda: (_ for _ in ()).throw(Boom()))
            queue_callback(lambda: ran.append("after the failing one"))
        y.register_hook(queue)
    elif where == "node":
        class Bad(minigrad.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 1

            @staticmethod
            def backward(ctx, g):
                raise Boom

        y = Bad.apply(y)
    with pytest.raises(Boom):
        y.sum().backward()
    if where == "callback":
        # The node work was done; callbacks ran FIFO up to the failing one.
        np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
        assert ran == ["first"]
    assert_engine_clean()
    assert_fresh_backward_works()


def test_a_failed_pass_keeps_the_effects_of_nodes_already_run():
    """As in PyTorch, a failed pass keeps the effects of nodes it already ran. Leaf a is
    accumulated (its AccumulateGrad runs as soon as it is ready, and a*3 is the newest
    node on its branch) before b's hook raises."""
    a, b = leaf([1.0]), leaf([2.0])
    q = (b * 2).exp()
    e = q + a * 3
    b.register_hook(lambda g: (_ for _ in ()).throw(Boom()))
    with pytest.raises(Boom):
        e.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0])
    assert b.grad is None
    assert_engine_clean()


# --- failures in forward ----------------------------------------------------------------------------

def test_pack_hook_that_raises_leaves_the_stack_clean():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])

    def pack(t):
        assert not minigrad.is_grad_enabled()   # pack runs under no_grad
        raise Boom("pack failed")

    with pytest.raises(Boom, match="pack failed"):
        with saved_tensors_hooks(pack, lambda t: t):
            x * w
    assert_engine_clean()
    assert_fresh_backward_works()


def test_pack_hook_that_raises_then_the_same_op_works_without_hooks():
    x = leaf([1.0, 2.0])
    calls = []

    def pack(t):
        calls.append(1)
        raise Boom

    with saved_tensors_hooks(pack, lambda t: t):
        with pytest.raises(Boom):
            x.exp()
        assert current_saved_tensors_hooks() is not None     # the context is still ours
    y = x.exp()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]))
    assert calls == [1]
    assert_engine_clean()


def test_unpack_hook_that_raises_in_backward_leaves_the_engine_clean():
    x = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda t: t, lambda p: (_ for _ in ()).throw(Boom())):
        y = x.exp()
    with pytest.raises(Boom):
        y.sum().backward()
    assert_engine_clean()


def test_exception_in_custom_function_forward_restores_grad_mode():
    modes = []

    class Fails(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            modes.append(minigrad.is_grad_enabled())    # forward runs under no_grad
            raise Boom("forward failed")

        @staticmethod
        def backward(ctx, g):
            return g

    x = leaf([1.0])
    with pytest.raises(Boom, match="forward failed"):
        Fails.apply(x)
    assert modes == [False]
    assert_engine_clean()
    with minigrad.no_grad():
        with pytest.raises(Boom):
            Fails.apply(x)
        assert not minigrad.is_grad_enabled()
    assert_engine_clean()
    assert_fresh_backward_works()


def test_exception_in_custom_function_forward_with_saved_tensors_hooks():
    class SavesThenFails(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            raise Boom

        @staticmethod
        def backward(ctx, g):
            return g

    packs = []
    with saved_tensors_hooks(lambda t: packs.append(1) or t, lambda t: t):
        with pytest.raises(Boom):
            SavesThenFails.apply(leaf([1.0]))
    assert_engine_clean()


# --- backward()'s argument checks change nothing --------------------------------------------------

def _watched_graph():
    """A graph whose every hook logs, so we can tell nothing ran."""
    log = []
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.register_hook(lambda g: log.append("tensor hook"))
    y.grad_fn.register_prehook(lambda g: log.append("prehook"))
    x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate"))
    return log, x, y


@pytest.mark.parametrize("call, error, message", [
    (lambda x, y: y.backward(), RuntimeError,
     "grad can be implicitly created only for scalar outputs"),
    (lambda x, y: y.backward(minigrad.ones(2, dtype=minigrad.float64)), RuntimeError,
     "Mismatch in shape: grad_output[0] has a shape of minigrad.Size([2]) and output[0] has a "
     "shape of minigrad.Size([3])."),
    (lambda x, y: minigrad.ones(3).sum().backward(), RuntimeError,
     "element 0 of tensors does not require grad and does not have a grad_fn"),
    (lambda x, y: minigrad.autograd.backward([y.sum(), minigrad.ones(1)]), RuntimeError,
     "element 1 of tensors does not require grad and does not have a grad_fn"),
    (lambda x, y: minigrad.autograd.backward([y.sum(), y.sum()], [None]), RuntimeError,
     "got 2 tensors and 1 gradients"),
    (lambda x, y: y.sum().backward(inputs=[]), RuntimeError,
     "`inputs` argument to `backward()` cannot be empty."),
    (lambda x, y: y.sum().backward(inputs=[minigrad.ones(1)]), RuntimeError,
     "can't retain_grad on Tensor that has requires_grad=False"),   # PyTorch retains first
    (lambda x, y: minigrad.autograd.grad(y.sum(), [minigrad.ones(1)]), RuntimeError,
     "One of the differentiated Tensors does not require grad"),
], ids=["non-scalar-without-gradient", "wrong-gradient-shape", "no-grad-tensor",
        "second-root-without-grad", "gradient-count", "empty-inputs", "input-without-grad",
        "grad-input-without-grad"])
def test_argument_errors_change_nothing(call, error, message):
    log, x, y = _watched_graph()
    with pytest.raises(error) as info:
        call(x, y)
    assert str(info.value) == message
    assert log == []
    assert x.grad is None and not x.retains_grad
    assert_engine_clean()
    # The graph is intact (nothing freed): a correct call now works, once.
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    assert log == ["tensor hook", "prehook", "post accumulate"]


def test_argument_error_messages_match_torch():
    torch = pytest.importorskip("torch")

    def messages(T):
        out = []
        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        y = x * x
        for call in (lambda: y.backward(),
                     lambda: y.backward(T.ones(2, dtype=T.float64)),
                     lambda: T.ones(3).sum().backward(),
                     lambda: T.autograd.backward([y.sum(), y.sum()], [None]),
                     lambda: y.sum().backward(inputs=[]),
                     lambda: y.sum().backward(inputs=[T.ones(1)]),
                     lambda: T.autograd.grad(y.sum(), [])):
            try:
                call()
            except Exception as exc:            # noqa: BLE001 - we compare them
                out.append((type(exc).__name__, str(exc)))
        return out

    # the module name is the only difference allowed: torch.Size prints as minigrad.Size
    assert messages(minigrad) == [(kind, text.replace("torch.", "minigrad."))
                                  for kind, text in messages(torch)]


# --- retain_graph ------------------------------------------------------------------------------------

def _chain():
    x = leaf([0.5, 1.5])
    w = leaf([2.0, -1.0])
    loss = ((x * w).exp() * x).sum()
    return x, w, loss


def test_retain_graph_then_second_pass_doubles_grads():
    x, w, loss = _chain()
    loss.backward(retain_graph=True)
    gx, gw = x.grad.numpy().copy(), w.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * gx)
    np.testing.assert_allclose(w.grad.numpy(), 2 * gw)
    assert_engine_clean()


def test_second_pass_without_retain_graph_raises_the_exact_message():
    x, w, loss = _chain()
    loss.backward()
    gx = x.grad.numpy().copy()
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    assert str(info.value) == SECOND_TIME
    np.testing.assert_allclose(x.grad.numpy(), gx)       # nothing accumulated before it failed
    assert_engine_clean()
    assert_fresh_backward_works()


def test_second_autograd_grad_without_retain_graph_raises_too():
    x, w, loss = _chain()
    minigrad.autograd.grad(loss, [x])
    with pytest.raises(RuntimeError, match=re.escape(SECOND_TIME)):
        minigrad.autograd.grad(loss, [x])
    assert x.grad is None
    assert_engine_clean()


def second_pass_error(T):
    x = T.tensor([0.5, 1.5], dtype=T.float64, requires_grad=True)
    loss = (x.exp() * x).sum()
    loss.backward()
    with pytest.raises(Exception) as info:
        loss.backward()
    return type(info.value).__name__, str(info.value)


def test_second_pass_message_matches_torch():
    torch = pytest.importorskip("torch")
    assert second_pass_error(minigrad) == second_pass_error(torch) == ("RuntimeError", SECOND_TIME)
