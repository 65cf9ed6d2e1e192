"""One backward pass's state (a *graph task*) and the per-thread "current graph task".

PyTorch counterparts: ``torch/csrc/autograd/graph_task.h`` (``GraphTask``,
``ExecInfo``) and the thread-local ``current_graph_task`` of ``engine.cpp``, read by
``torch._C._current_graph_task_id()`` and ``torch._C._will_engine_execute_node``.

The engine (``engine.py``) makes a :class:`GraphTask`, and makes it current while it runs
nodes, hooks and callbacks. Code that runs *inside* a pass reads it from here: final
callbacks (``queue_callback``), multi-grad hooks (which count how many gradients to wait
for), checkpointing. This module imports nothing from minigrad, so the graph and the
engine can both use it.
"""
import contextlib
import itertools
import threading

import numpy as np

from .. import grad_mode

__all__ = ["GraphTask", "ExecInfo", "current_graph_task", "running", "current_graph_task_id",
           "will_engine_execute_node",
           "is_checkpoint_valid", "queue_callback"]


class ExecInfo:
    """For ``autograd.grad`` / ``backward(inputs=...)``: whether a node must run
    (``needed``) and which gradients to capture at it (``captures``: input slot,
    result index)."""

    __slots__ = ("needed", "captures")

    def __init__(self):
        self.needed = False
        self.captures = []

    def should_execute(self):
        return self.needed or bool(self.captures)


class GraphTask:
    """The state of one backward pass."""

    _ids = itertools.count(1)

    def __init__(self, keep_graph, create_graph):
        self.id = next(GraphTask._ids)
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.dependencies = {}
        self.nodes_in_graph = set()
        self.not_ready = {}
        self.exec_info = None            # None: run everything reachable
        self.captured = []
        self.final_callbacks = []
        self.ready_queue = None          # set by _execute (read by snapshots)
        self.watched = False             # someone steps or records the pass: yield every event


class _TaskStack(threading.local):
    def __init__(self):
        self.tasks = []                  # the running passes of this thread, innermost last


_current = _TaskStack()


def current_graph_task():
    """The innermost pass running on this thread, or None."""
    tasks = _current.tasks
    return tasks[-1] if tasks else None


@contextlib.contextmanager
def running(task):
    """Run the block as part of ``task``: the task is current, and grad mode is on only
    for ``create_graph`` (PyTorch runs every node, hook and callback of a pass that way).
    The caller's grad mode and current task come back even if the block raises, and numpy
    does not warn about NaN or inf meanwhile."""
    previous = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(task.create_graph)
    _current.tasks.append(task)
    try:
        # PyTorch's kernels make NaN and inf in silence (anomaly mode is how to find them);
        # numpy's would warn "invalid value encountered" from inside a node's formula.
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            yield task
    finally:
        _current.tasks.remove(task)
        grad_mode._set_enabled(previous)


def current_graph_task_id():
    """``torch._C._current_graph_task_id()``: -1 outside a backward pass."""
    task = current_graph_task()
    return task.id if task is not None else -1


def is_checkpoint_valid():
    """``torch.autograd._is_checkpoint_valid()``: False while a pass that runs only part
    of the graph (``autograd.grad``, ``backward(inputs=)``) is running, itself or around
    a reentrant pass. The reentrant checkpoint refuses to run then."""
    return all(task.exec_info is None for task in _current.tasks)


def queue_callback(callback):
    """``Variable._execution_engine.queue_callback(cb)``: run ``cb()`` once, after every
    node of the current pass finished (FIFO; a callback may queue more). Skipped when
    the pass fails."""
    task = current_graph_task()
    if task is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    task.final_callbacks.append(callback)


def will_engine_execute_node(node):
    """``torch._C._will_engine_execute_node``: will the current pass run (or capture
    at) ``node``? Used by multi-grad hooks to know how many gradients to wait for."""
    task = current_graph_task()
    if task is None:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    if task.exec_info is None:
        return node in task.nodes_in_graph
    info = task.exec_info.get(node)
    if node not in task.nodes_in_graph or info is None or not info.should_execute():
        return False                     # not on a path to an input: no question to ask
    # PyTorch asks for topological_nr 0: a node with no next node, such as AccumulateGrad.
    if info.captures and all(nxt is None for nxt, _ in node.next_functions):
        raise RuntimeError(
            "A leaf node was passed to _will_engine_execute_node but we are currently running "
            "autograd.grad(). This is currently not supported.")
    return True
