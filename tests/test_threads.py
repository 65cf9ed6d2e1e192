"""Thread-local autograd state, as in PyTorch.

PyTorch keeps the saved-tensor hook stack (``at::SavedTensorDefaultHooks``), the
"disabled" message, grad mode and the current graph task per thread. Each test
interleaves two threads deterministically with ``threading.Barrier``/``Event`` (every
wait has a timeout, so a bug fails the test instead of hanging it) and re-raises in
the main thread whatever failed in a worker.
"""
import threading

import numpy as np
import pytest

import minigrad
from minigrad.autograd.engine import current_graph_task_id
from minigrad.autograd.graph import (current_saved_tensors_hooks, disable_saved_tensors_hooks,
                                     saved_tensors_hooks)

TIMEOUT = 10


def run_threads(*targets):
    """Run each target in its own thread; re-raise the first exception of any."""
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as exc:        # noqa: BLE001 - reported below
                errors.append(exc)
        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT * 3)
        assert not t.is_alive(), "a worker thread hung"
    if errors:
        raise errors[0]


def leaf(values):
    return minigrad.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def test_saved_tensors_hooks_stack_is_per_thread():
    """While thread A is inside ``saved_tensors_hooks``, thread B's ops save their
    tensors without A's pack hook, and B sees an empty stack."""
    packed_by = []                               # thread names seen by the pack hook
    a_inside, b_done = threading.Event(), threading.Event()

    def pack(t):
        packed_by.append(threading.current_thread().name)
        return t

    def thread_a():
        threading.current_thread().name = "A"
        x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
        with saved_tensors_hooks(pack, lambda t: t):
            a_inside.set()
            assert b_done.wait(TIMEOUT)
            z = x * y                            # MulBackward0 saves both inputs: 2 packs
            assert current_saved_tensors_hooks() is not None
        z.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])

    def thread_b():
        threading.current_thread().name = "B"
        assert a_inside.wait(TIMEOUT)
        try:
            assert current_saved_tensors_hooks() is None
            x, y = leaf([5.0, 6.0]), leaf([7.0, 8.0])
            z = (x * y).exp()                    # saves 3 tensors, none packed
            z.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), (y * z).detach().numpy())
        finally:
            b_done.set()

    run_threads(thread_a, thread_b)
    assert packed_by == ["A", "A"]
    assert current_saved_tensors_hooks() is None


def test_saved_tensors_hooks_of_both_threads_stay_apart():
    """Both threads inside their own ``saved_tensors_hooks`` at the same time, each
    saving while the other is inside: each pack hook sees only its own thread."""
    log = {"A": [], "B": []}
    barrier = threading.Barrier(2, timeout=TIMEOUT)

    def worker(name, scale):
        def run():
            def pack(t):
                log[name].append(threading.current_thread().name)
                return t.detach() * 1.0
            threading.current_thread().name = name
            x = leaf([1.0, 2.0, 3.0])
            with saved_tensors_hooks(pack, lambda p: p):
                barrier.wait()                   # both are inside now
                y = (x * scale).tanh()           # tanh saves its result: 1 pack
                barrier.wait()                   # both have saved
            y.sum().backward()
            expected = scale * (1 - np.tanh(scale * np.array([1.0, 2.0, 3.0])) ** 2)
            np.testing.assert_allclose(x.grad.numpy(), expected)
        return run

    run_threads(worker("A", 0.5), worker("B", 2.0))
    assert log == {"A": ["A"], "B": ["B"]}


def test_disable_saved_tensors_hooks_is_per_thread():
    a_disabled, b_checked = threading.Event(), threading.Event()
    b_inside, a_checked = threading.Event(), threading.Event()

    def thread_a():
        with disable_saved_tensors_hooks("disabled in A"):
            a_disabled.set()
            assert b_checked.wait(TIMEOUT)
            with pytest.raises(RuntimeError, match="^disabled in A$"):
                with saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        # Now B holds hooks on *its* stack; A's stack is empty, so A may disable.
        assert b_inside.wait(TIMEOUT)
        with disable_saved_tensors_hooks("A again"):
            pass
        a_checked.set()

    def thread_b():
        assert a_disabled.wait(TIMEOUT)
        try:
            with saved_tensors_hooks(lambda t: t, lambda t: t):    # not disabled here
                x = leaf([1.0])
                (x * x).sum().backward()
        finally:
            b_checked.set()
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            b_inside.set()
            assert a_checked.wait(TIMEOUT)
            with pytest.raises(RuntimeError, match="^B has hooks$"):
                with disable_saved_tensors_hooks("B has hooks"):
                    pass

    run_threads(thread_a, thread_b)


def test_grad_mode_is_per_thread():
    a_in_no_grad, b_checked = threading.Event(), threading.Event()
    seen = {}

    def thread_a():
        with minigrad.no_grad():
            a_in_no_grad.set()
            assert b_checked.wait(TIMEOUT)
            seen["A"] = minigrad.is_grad_enabled()
            seen["A op"] = (leaf([1.0]) * 2).requires_grad
        seen["A after"] = minigrad.is_grad_enabled()

    def thread_b():
        assert a_in_no_grad.wait(TIMEOUT)
        try:
            seen["B"] = minigrad.is_grad_enabled()
            y = leaf([1.0]) * 2
            seen["B op"] = y.requires_grad and y.grad_fn is not None
            with minigrad.set_grad_enabled(False):
                seen["B off"] = minigrad.is_grad_enabled()
        finally:
            b_checked.set()

    run_threads(thread_a, thread_b)
    assert seen == {"A": False, "A op": False, "A after": True,
                    "B": True, "B op": True, "B off": False}
    assert minigrad.is_grad_enabled()


def test_concurrent_backward_passes_on_separate_graphs():
    """Two threads are inside backward at the same moment (their hooks meet at a
    barrier): each pass has its own graph task, grad mode and callbacks, and each
    gets the right gradients."""
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    results = {}

    def worker(name, values, power):
        def run():
            x = leaf(values)
            y = x ** power
            z = y.sin()
            task_ids, callbacks = [], []

            def hook(grad):
                task_ids.append(current_graph_task_id())
                assert not minigrad.is_grad_enabled()
                minigrad.autograd.Variable._execution_engine.queue_callback(
                    lambda: callbacks.append(name))
                barrier.wait()                  # the other thread is mid-backward too
                barrier.wait()
                return grad

            y.register_hook(hook)
            for _ in range(3):                  # several rounds, same barrier dance
                x.grad = None
                z.sum().backward(retain_graph=True)
                expected = np.cos(np.asarray(values) ** power) * power * np.asarray(values) ** (power - 1)
                np.testing.assert_allclose(x.grad.numpy(), expected)
            assert current_graph_task_id() == -1
            results[name] = (task_ids, callbacks)
        return run

    run_threads(worker("A", [0.5, 1.0, 1.5], 2), worker("B", [0.2, 0.4], 3))
    ids_a, cb_a = results["A"]
    ids_b, cb_b = results["B"]
    assert cb_a == ["A"] * 3 and cb_b == ["B"] * 3
    assert len(set(ids_a)) == 3 and len(set(ids_b)) == 3
    assert not set(ids_a) & set(ids_b)          # never the other thread's task
    assert minigrad.is_grad_enabled()


def test_queue_callback_sees_only_this_threads_pass():
    """While thread A is inside backward, thread B is not: queue_callback in B raises."""
    a_in_backward, b_checked = threading.Event(), threading.Event()

    def thread_a():
        x = leaf([1.0, 2.0])
        y = x * 3

        def hook(grad):
            a_in_backward.set()
            assert b_checked.wait(TIMEOUT)

        y.register_hook(hook)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])

    def thread_b():
        assert a_in_backward.wait(TIMEOUT)
        try:
            assert current_graph_task_id() == -1
            with pytest.raises(RuntimeError,
                               match="Final callbacks can only be installed during backward pass."):
                minigrad.autograd.Variable._execution_engine.queue_callback(lambda: None)
        finally:
            b_checked.set()

    run_threads(thread_a, thread_b)


def test_torch_saved_tensors_hooks_are_per_thread_too():
    """The property the tests above check, shown on PyTorch itself."""
    torch = pytest.importorskip("torch")
    packed_by = []
    a_inside, b_done = threading.Event(), threading.Event()

    def pack(t):
        packed_by.append(threading.current_thread().name)
        return t

    def thread_a():
        threading.current_thread().name = "A"
        x = torch.ones(2, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            a_inside.set()
            assert b_done.wait(TIMEOUT)
            (x * x).sum().backward()

    def thread_b():
        threading.current_thread().name = "B"
        assert a_inside.wait(TIMEOUT)
        try:
            x = torch.ones(2, requires_grad=True)
            (x * x).sum().backward()
        finally:
            b_done.set()

    run_threads(thread_a, thread_b)
    assert packed_by == ["A", "A"]


def nested_passes(T, task_id):
    """A tensor hook of one pass runs a whole second pass (a reentrant backward, as the
    reentrant checkpoint does), and each pass queues final callbacks. The current graph
    task is a per-thread *stack*: the inner pass is current while it runs (its callback
    runs when it ends), then the outer one is current again."""
    log, ids = [], []
    queue_callback = T.autograd.Variable._execution_engine.queue_callback
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([3.0, 4.0], requires_grad=True)
    inner_loss = (b * 2).sum()

    def inner_hook(grad):
        ids.append(task_id())
        queue_callback(lambda: log.append("inner callback"))
        log.append("inner hook")

    def outer_hook(grad):
        ids.append(task_id())
        queue_callback(lambda: log.append("outer callback"))
        log.append("outer hook: inner pass starts")
        inner_loss.backward()
        log.append("inner pass returned")
        ids.append(task_id())
        queue_callback(lambda: log.append("outer callback, queued after the inner pass"))

    b.register_hook(inner_hook)
    y = a * 3
    y.register_hook(outer_hook)
    y.sum().backward()
    ids.append(task_id())
    outer, inner, outer_again, after = ids
    return log, {"inner is another task": inner not in (outer, -1),
                 "outer is current again": outer_again == outer, "none after": after == -1}


def test_a_nested_pass_is_current_while_it_runs():
    torch = pytest.importorskip("torch")
    assert nested_passes(minigrad, current_graph_task_id) == \
        nested_passes(torch, torch._C._current_graph_task_id)
