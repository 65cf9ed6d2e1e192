"""The backward engine: dependency counting, a ready queue, and the hooks in order.

PyTorch counterpart: ``torch/csrc/autograd/engine.cpp`` (``Engine::execute``,
``evaluate_function``, ``call_function``, ``compute_dependencies``,
``init_to_execute``), seen from a single CPU thread.

One backward pass is a *graph task*:

1. count, for every node reachable from the root, how many edges point at it;
2. push the root with its gradient on a ready queue;
3. pop the node with the highest sequence number (the one created last in forward;
   a leaf's AccumulateGrad has the largest possible number, so a leaf is accumulated
   as soon as its gradient is complete), run it with its hooks, and hand each output
   gradient to the next node's input buffer, where gradients from several uses are
   summed; a node whose count reaches zero is ready;
4. when the queue is empty, run the final callbacks queued during the pass.

In the code, ``_execute`` is that loop: for each node popped, ``_capture`` stores what
``autograd.grad`` asked for, ``_call_function`` runs the node with its hooks, and
``_evaluate_function`` hands its gradients on.

At one node the order is (``call_function``): tensor hooks, then ``retain_grad``,
then node pre-hooks, the node itself (AccumulateGrad: accumulate, keeping the
incoming buffer as ``.grad`` when nothing else holds it, then post-accumulate hooks),
the engine's output validation (reduce broadcast gradients, cast dtypes), then node
post-hooks. In anomaly mode (``anomaly_mode.py``) the node's gradients are then checked
for NaN, and a node that fails gets its forward stack shown.

The engine is a generator of :class:`EngineEvent` so a pass can be stepped and
watched (:func:`backward_steps`, :func:`record_events`); ``backward()`` just runs it
to the end. The three events every node has (``node_start``, ``apply``, ``node_done``)
are made only when someone steps or records the pass (``task.watched``): unwatched,
a node costs no event but those of the hooks it runs.

Lesson 10 swaps this engine for one the learner writes (:func:`use`, "the seam" at
the end of this file). The learner's engine reads a node through the helpers this
engine reads it with (``tensor_hooks``, ``store_retained_grads``, ``pre_hooks``,
``call_node``, ``post_accumulate_hooks``, ``post_hooks``, ``new_input_buffer``), and
writes its own ``compute_dependencies``, ready queue and ``add_to_input_buffer``.
"""
import contextlib
import threading
from collections import deque as _deque, namedtuple as _namedtuple

from ..dtypes import from_numpy_dtype as _from_numpy_dtype
from ._arguments import backward_arguments as _backward_arguments
from . import anomaly_mode as _anomaly_mode
from .graph import (AccumulateGrad as _AccumulateGrad, Node as _Node,
                    check_node_hook_result as _check_node_hook_result,
                    check_tensor_hook_result as _check_tensor_hook_result)
from .graph_task import (ExecInfo as _ExecInfo, GraphTask, current_graph_task as _current_graph_task,
                         current_graph_task_id, is_checkpoint_valid, queue_callback,
                         running as _running, will_engine_execute_node)

__all__ = ["EVENT_KINDS", "EngineEvent", "EngineState", "backward_steps", "record_events", "queue_callback",
           "current_graph_task_id", "will_engine_execute_node", "is_checkpoint_valid",
           # the seam (lesson 10): plug in an engine of your own
           "use", "real_engine_runs", "call_node", "tensor_hooks", "store_retained_grads",
           "pre_hooks", "post_hooks", "post_accumulate_hooks", "new_input_buffer",
           "final_callbacks", "GraphTask", "run_backward",
           # the engine's parts, as PyTorch's C++ engine names them (lesson 10 asks for your own)
           "GraphRoot", "ReadyQueue", "compute_dependencies", "add_to_input_buffer",
           "validate_outputs", "sum_to"]

#: The kinds of :class:`EngineEvent`, in the order they can occur at one node:
#: popped from the ready queue; a tensor hook ran; retain_grad stored ``.grad``;
#: ``autograd.grad`` captured a gradient; a node pre-hook ran; the backward formula ran;
#: a post-accumulate-grad hook ran; a node post-hook ran; the gradients were handed on;
#: a final callback ran (once per pass, after every node).
EVENT_KINDS = ("node_start", "tensor_hook", "retain_grad", "capture", "pre_hook", "apply",
               "post_accumulate_hook", "post_hook", "node_done", "callback")


class EngineEvent(_namedtuple("EngineEvent", "kind node hook args result")):
    """One step of a backward pass: ``kind`` (one of :data:`EVENT_KINDS`), the ``node``
    concerned (None for a callback), the ``hook`` that ran (None for the engine's own
    steps), what it received (``args``: the hook's arguments, the node's input buffer at
    "node_start" and "apply", its gradients at "node_done") and what it returned
    (``result``: a hook's return value, the node's gradients at "apply", else None).
    Events from :func:`backward_steps` also carry ``state``, an :class:`EngineState`
    taken at that pause (None when not recorded)."""

    state = None


EngineState = _namedtuple("EngineState", "queue dependencies buffers callbacks")
EngineState.__doc__ = """What the engine holds at one pause of a stepped pass (copies:
changing them changes nothing). ``queue``: ``(sequence_nr, node, buffer)`` in the order
the ready queue will pop them; ``dependencies``: ``{node: edges still to arrive}``;
``buffers``: ``{node: buffer}`` for nodes still waiting (not ready); ``callbacks``: the
final callbacks queued so far. A buffer is a tuple with one numpy copy (or None) per
input of the node: the gradients gathered so far."""
# Inside the engine an event is a plain 5-tuple (cheap to make and to drop when nobody
# watches); the stepping and recording drivers turn it into an EngineEvent.


class GraphRoot(_Node):
    """The node PyTorch puts above several roots (``backward([a, b])``): it has the
    newest sequence number and hands each root its gradient."""

    _name = "GraphRoot"
    __module__ = "builtins"

    def __init__(self, edges, grads):
        super().__init__(edges)
        self._grads = tuple(grads)

    def apply(self, grad_outputs, needs_input_grad):
        return self._grads


class _EngineLocal(threading.local):
    recorders = None                     # record_events lists open on this thread
    custom = None                        # engines plugged in with use(), innermost last


_local = _EngineLocal()

# Passes and nodes run by this engine, on every thread (real_engine_runs): one count for the
# process, so a pass started on another thread cannot run unseen.
_real_runs = [0]


# --- the ready queue ------------------------------------------------------------------------
class ReadyQueue:
    """A max-heap on sequence number, ported from libstdc++'s ``push_heap``/``pop_heap``
    (PyTorch's ``std::priority_queue``) so that ties between AccumulateGrad nodes, which
    all share the largest sequence number, pop in exactly PyTorch's order. Python's
    ``heapq`` orders ties differently."""

    def __init__(self):
        self._heap = []

    def __len__(self):
        return len(self._heap)

    def push(self, node, buffer):
        h = self._heap
        item = (node._seq, node, buffer)
        h.append(item)
        hole = len(h) - 1
        key = item[0]
        while hole > 0:
            parent = (hole - 1) // 2
            if h[parent][0] < key:
                h[hole] = h[parent]
                hole = parent
            else:
                break
        h[hole] = item

    def pop(self):
        h = self._heap
        top = h[0]
        value = h[-1]
        n = len(h) - 1
        hole = child = 0
        while child < (n - 1) // 2:
            child = 2 * (child + 1)
            if h[child][0] < h[child - 1][0]:
                child -= 1
            h[hole] = h[child]
            hole = child
        if n % 2 == 0 and n >= 2 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            h[hole] = h[child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > 0 and h[parent][0] < value[0]:
            h[hole] = h[parent]
            hole = parent
            parent = (hole - 1) // 2
        if n > 0:
            h[hole] = value
        h.pop()
        return top[1], top[2]

    def in_pop_order(self):
        """``(sequence_nr, node, buffer)`` in the order :meth:`pop` would return them."""
        copy = ReadyQueue()
        copy._heap = list(self._heap)
        out = []
        while copy:
            node, buffer = copy.pop()
            out.append((node._seq, node, buffer))
        return out


# --- graph preparation -------------------------------------------------------------------
def compute_dependencies(task, root):
    """Count the edges pointing at each node reachable from ``root`` into
    ``task.dependencies`` (PyTorch's ``Engine::compute_dependencies``)."""
    deps = task.dependencies
    seen = task.nodes_in_graph
    stack = [root]
    while stack:
        fn = stack.pop()
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)


def _init_to_execute(task, root, input_edges, accumulate_grad):
    """Mark which nodes must run so that the ``inputs`` get their gradients: the input
    nodes themselves (``backward(inputs=)``) or captures at them (``autograd.grad``),
    and every node with a path to one of them. The rest of the graph is pruned."""
    info = task.exec_info = {}
    for index, (node, input_nr) in enumerate(input_edges):
        entry = info.setdefault(node, _ExecInfo())
        if accumulate_grad:
            entry.needed = True
        else:
            entry.captures.append((input_nr, index))
    if not accumulate_grad:
        task.captured = [None] * len(input_edges)
    # Post-order DFS: a node is needed when one of its next nodes must execute.
    visited = set()
    stack = [(root, iter(root.next_functions))]
    visited.add(root)
    while stack:
        fn, children = stack[-1]
        for child, _ in children:
            if child is not None and child not in visited:
                visited.add(child)
                stack.append((child, iter(child.next_functions)))
                break
        else:
            stack.pop()
            if any(child in info and info[child].should_execute()
                   for child, _ in fn.next_functions):
                info.setdefault(fn, _ExecInfo()).needed = True


# --- what the engine reads from a node (the seam's helpers too: lesson 10) ---------------
# PyTorch's ``call_function`` reads a node's hook lists in C++; these helpers read them
# here, for this engine and for one written in lesson 10 (see "the seam" below), so both
# run the same code.

def new_input_buffer(node):
    """A fresh input buffer for ``node``: one None slot per gradient it receives
    (PyTorch's ``InputBuffer(num_inputs)``)."""
    return [None] * (len(node._input_metadata) or 1)


def add_to_input_buffer(buffer, input_nr, grad):
    """Add ``grad`` into slot ``input_nr`` of an input buffer, which sums the gradients
    arriving from several uses (PyTorch's ``InputBuffer::add``). A None gradient adds
    nothing."""
    if grad is None:
        return
    old = buffer[input_nr]
    buffer[input_nr] = grad if old is None else old + grad


def tensor_hooks(node):
    """The tensor hooks (``Tensor.register_hook``) to run when ``node`` is popped, as
    ``(input_nr, hook)`` pairs in the order to run them: grouped per tensor, in the
    order the tensors got their first hook (PyTorch's ``node.tensor_pre_hooks()``).
    ``hook(grad_outputs[input_nr])`` returns None or the gradient that replaces it.

    Iterate it while running the hooks: as in PyTorch, each tensor's hooks are read
    when its turn comes, so a hook may add one to a tensor whose turn is still ahead."""
    for hooks, nr in list(node.tensor_pre_hooks()):
        for hook in list(hooks.values()):        # a snapshot: removals/additions apply next time
            yield nr, hook


def store_retained_grads(node, grad_outputs):
    """Run ``node``'s ``retain_grad`` hooks: store ``grad_outputs[i]`` as ``.grad`` of
    every output tensor that called ``retain_grad()`` (PyTorch's
    ``node.retains_grad_hooks()``). Returns the slots stored."""
    stored = []
    for nr, ref in list((node._retains_grad_hooks or {}).items()):
        tensor = ref()
        if tensor is not None:
            tensor._store_retained_grad(grad_outputs[nr])
            stored.append(nr)
    return stored


def pre_hooks(node):
    """``node``'s pre-hooks (``Node.register_prehook``), in registration order:
    ``hook(grad_outputs)`` returns None or a tuple that replaces them."""
    return list(node._pre_hooks.values()) if node._pre_hooks else []


def post_accumulate_hooks(node):
    """For an ``AccumulateGrad`` node, its leaf's post-accumulate-grad hooks
    (``Tensor.register_post_accumulate_grad_hook``), in registration order:
    ``hook(leaf)`` returns None. Empty for every other node."""
    if not isinstance(node, _AccumulateGrad):
        return []
    hooks = node.variable._post_accumulate_grad_hooks
    return list(hooks.values()) if hooks else []


def post_hooks(node):
    """``node``'s post-hooks (``Node.register_hook``), in registration order:
    ``hook(grad_inputs, grad_outputs)`` returns None or a tuple replacing grad_inputs."""
    return list(node._post_hooks.values()) if node._post_hooks else []


def validate_outputs(fn, outputs):
    """PyTorch's ``validate_outputs``: one gradient per next edge, each reduced to the
    shape of the input it belongs to (undoing broadcasting) and cast to its dtype."""
    edges = fn.next_functions
    if len(outputs) != len(edges):
        raise RuntimeError(f"function {fn.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(outputs)})")
    for i, grad in enumerate(outputs):
        nxt, input_nr = edges[i]
        if grad is None or nxt is None:
            continue
        shape, dtype = nxt._input_metadata[input_nr]
        data = grad._array
        if data.shape != shape:
            if not _expandable(shape, data.shape):
                raise RuntimeError(
                    f"Function {fn.name()} returned an invalid gradient at index {i} - got "
                    f"{list(data.shape)} but expected shape compatible with {list(shape)}")
            grad = outputs[i] = sum_to(grad, shape)
        if data.dtype is not dtype and data.dtype != dtype:     # (``is``: the quick common case)
            outputs[i] = grad.to(_from_numpy_dtype(dtype))
    return outputs


def call_node(node, grad_outputs):
    """Run ``node``'s backward formula on ``grad_outputs`` and return its gradients, a
    list with one entry (a tensor or None) per ``node.next_functions`` edge, reduced to
    the shape and dtype each next node expects (PyTorch's ``fn(inputs)`` followed by
    ``validate_outputs``). No hook runs here: for an ``AccumulateGrad`` node it adds
    the gradient into ``.grad`` and returns ``[]``; its post-accumulate hooks are yours
    to call."""
    if isinstance(node, _AccumulateGrad):
        node.apply(tuple(grad_outputs), (), run_hooks=False)
        return []
    outputs = list(node.apply(tuple(grad_outputs), node._full_needs_input_grad()))
    return validate_outputs(node, outputs)


def sum_to(grad, shape):
    """Reduce a broadcast gradient back to ``shape`` (PyTorch's ``at::sum_to``): sum the
    leading dims that broadcasting added and the dims that were 1. Built from tensor
    ops, so it is differentiable too (``create_graph``)."""
    shape = tuple(shape)
    gshape = grad._array.shape
    if gshape == shape:
        return grad
    if not shape:
        return grad.sum()
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
    if dims:
        grad = grad.sum(dim=dims, keepdim=True)
    if lead or grad._array.shape != shape:
        grad = grad.reshape(shape)
    return grad


def _expandable(shape, to_shape):
    if len(shape) > len(to_shape):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(to_shape)))


# --- running one node ----------------------------------------------------------------------
def _call_tensor_pre_hooks(fn, inputs):
    """Tensor hooks (grouped per tensor, in the order tensors got their first hook),
    then every retain_grad hook, so ``.grad`` holds the fully hooked gradient."""
    for nr, hook in tensor_hooks(fn):
        grad = inputs[nr]
        result = hook(grad)
        yield ("tensor_hook", fn, hook, (grad,), result)
        if result is None or result is grad:
            continue
        _check_tensor_hook_result(hook, grad, result)
        inputs[nr] = result
    if fn._retains_grad_hooks:
        for nr in store_retained_grads(fn, inputs):
            yield ("retain_grad", fn, None, (inputs[nr],), None)
    return inputs


def _needs_input_grad(task, fn):
    if task.exec_info is None:
        return fn._full_needs_input_grad()
    info = task.exec_info
    return tuple([nxt is not None and nxt in info and info[nxt].should_execute()
                  for nxt, _ in fn.next_functions])


def _call_function(task, fn, inputs):
    _real_runs[0] += 1
    if fn.tensor_pre_hooks() or fn._retains_grad_hooks:
        inputs = yield from _call_tensor_pre_hooks(fn, inputs)
    if fn._pre_hooks:
        for hook in pre_hooks(fn):
            grad_outputs = tuple(inputs)
            result = hook(grad_outputs)
            yield ("pre_hook", fn, hook, (grad_outputs,), result)
            if result is not None:
                _check_node_hook_result(hook, grad_outputs, result)
                inputs = list(result)
        # Drop what the loop holds: AccumulateGrad counts references to the gradient
        # to know whether it may keep the buffer (see graph.accumulate_into_grad).
        grad_outputs = result = None
    had_post_hooks = bool(fn._post_hooks)
    grad_outputs = tuple(inputs)
    outputs = fn.apply(grad_outputs, _needs_input_grad(task, fn))
    if type(outputs) is not list:       # nodes may return any sequence; we edit it in place
        outputs = list(outputs)
    if task.watched:
        yield ("apply", fn, None, grad_outputs, tuple(outputs))
    # A leaf's post-accumulate-grad hooks already ran, inside apply (accumulate_into_grad,
    # right after .grad was written). Their events are emitted here, after apply returned,
    # so a stepped pass shows them after "apply", before the node's post-hooks.
    if isinstance(fn, _AccumulateGrad):
        for hook in post_accumulate_hooks(fn):
            yield ("post_accumulate_hook", fn, hook, (fn.variable,), None)
    outputs = validate_outputs(fn, outputs)
    if fn._post_hooks:                       # read again: a hook may be added during apply
        for hook in post_hooks(fn):
            grad_inputs = tuple(outputs)
            result = hook(grad_inputs, grad_outputs if had_post_hooks else ())
            yield ("post_hook", fn, hook, (grad_inputs, grad_outputs), result)
            if result is not None:
                _check_node_hook_result(hook, grad_inputs, result)
                outputs = list(result)
    return outputs


def _capture(task, fn, inputs):
    """``autograd.grad`` and ``backward(inputs=)``: store the gradients requested at
    ``fn``. Returns the inputs to run ``fn`` on, or None when ``fn`` is only visited to
    capture (its tensor hooks run; a node that runs them later runs them then)."""
    info = task.exec_info[fn]
    if not info.needed:
        inputs = yield from _call_tensor_pre_hooks(fn, inputs)
    for input_nr, index in info.captures:
        task.captured[index] = inputs[input_nr]
        yield ("capture", fn, None, (inputs[input_nr],), None)
    return inputs if info.needed else None


def _evaluate_function(task, fn, outputs, queue):
    """After ``fn`` ran: free what it saved, check for NaN in anomaly mode, and hand each
    gradient to the next node's input buffer, queueing the nodes that became ready."""
    if not task.keep_graph:
        fn.release_variables()
    if _anomaly_mode.is_anomaly_enabled() and _anomaly_mode.is_anomaly_check_nan_enabled():
        _anomaly_mode.check_nan(fn, outputs)
    deps, not_ready, exec_info = task.dependencies, task.not_ready, task.exec_info
    for (nxt, input_nr), grad in zip(fn.next_functions, outputs):
        if nxt is None:
            continue
        deps[nxt] -= 1
        ready = deps[nxt] == 0
        buffer = not_ready.get(nxt)
        if buffer is None:
            if exec_info is not None and not (nxt in exec_info and exec_info[nxt].should_execute()):
                continue                     # pruned: not on a path to a requested input
            buffer = new_input_buffer(nxt)
            buffer[input_nr] = grad          # a new buffer: nothing to sum with yet
            if ready:
                queue.push(nxt, buffer)
            else:
                not_ready[nxt] = buffer
        else:
            add_to_input_buffer(buffer, input_nr, grad)
            if ready:
                queue.push(nxt, not_ready.pop(nxt))


# --- a whole pass -----------------------------------------------------------------------------
def _execute(task, root, root_buffer):
    _real_runs[0] += 1
    queue = task.ready_queue = ReadyQueue()
    queue.push(root, root_buffer)
    while queue._heap:
        fn, inputs = queue.pop()
        try:
            if task.watched:
                yield ("node_start", fn, None, tuple(inputs), None)
            if task.exec_info is not None:
                inputs = yield from _capture(task, fn, inputs)
                if inputs is None:
                    continue
            outputs = yield from _call_function(task, fn, inputs)
            _evaluate_function(task, fn, outputs, queue)
            # Yielded once the gradients are handed on, so a paused pass shows them queued.
            if task.watched:
                yield ("node_done", fn, None, tuple(outputs), None)
            # The next nodes hold these gradients now; the loop must not (AccumulateGrad
            # counts the references to a gradient to decide whether .grad may keep it).
            outputs = None
        except Exception:
            if _anomaly_mode.is_anomaly_enabled():
                _anomaly_mode.print_stack(fn)      # the forward call that made fn
            raise
    callbacks = task.final_callbacks
    i = 0
    while i < len(callbacks):                # callbacks may queue more callbacks
        callbacks[i]()
        yield ("callback", None, callbacks[i], (), None)
        i += 1


def _prepare(roots, grads, keep_graph, create_graph, input_edges=None, accumulate_grad=True):
    """Build the graph task and the root's input buffer. ``roots`` are edges."""
    task = GraphTask(keep_graph, create_graph)
    if len(roots) == 1:
        root, input_nr = roots[0]
        buffer = [None] * max(len(root._input_metadata), input_nr + 1)
        buffer[input_nr] = grads[0]
    else:
        root = GraphRoot(roots, grads)
        buffer = []
    compute_dependencies(task, root)
    if input_edges:
        _init_to_execute(task, root, input_edges, accumulate_grad)
        # The root runs only if it leads to an input (PyTorch: a root that cannot reach
        # one is visited, so its tensor hooks run, but not executed).
        task.exec_info.setdefault(root, _ExecInfo())
    return task, root, buffer


def run_backward(roots, grads, keep_graph, create_graph, input_edges=None, accumulate_grad=True):
    """Run one pass to the end; returns the captured gradients (``autograd.grad``).

    Inside ``with use(my_engine):`` a plain ``backward()`` pass (no ``inputs=``) runs
    on ``my_engine`` instead (see :func:`use`)."""
    task, root, buffer = _prepare(roots, grads, keep_graph, create_graph, input_edges, accumulate_grad)
    if _local.custom and input_edges is None:
        with _running(task):
            _local.custom[-1](root, list(buffer), task.keep_graph)
        return task.captured
    events = _execute(task, root, buffer)
    recorders = _local.recorders
    task.watched = bool(recorders)
    with _running(task):
        if recorders:
            for event in events:
                event = EngineEvent._make(event)
                for recorded in recorders:
                    recorded.append(event)
        else:
            _deque(events, maxlen=0)
    return task.captured


def _steps(task, root, buffer):
    """Drive ``_execute`` one event at a time, with the pass's grad mode (on only for
    ``create_graph``) and this task as the current one while the engine works, and the
    caller's state restored in between, so a stepped pass cannot leak either."""
    engine = _execute(task, root, buffer)
    task.watched = True
    while True:
        try:
            with _running(task):
                event = next(engine)
        except StopIteration:
            return
        event = EngineEvent._make(event)
        event.state = _snapshot(task)
        yield event


def _copy_buffer(buffer):
    return tuple(None if g is None else g._array.copy() for g in buffer)


def _snapshot(task):
    """An :class:`EngineState` of ``task`` (numpy copies: it holds no gradient tensor)."""
    queue = task.ready_queue.in_pop_order() if task.ready_queue is not None else ()
    return EngineState(tuple((seq, node, _copy_buffer(buf)) for seq, node, buf in queue),
                       dict(task.dependencies),
                       {node: _copy_buffer(buf) for node, buf in task.not_ready.items()},
                       tuple(task.final_callbacks))


def backward_steps(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Step through a real backward pass: the same arguments as
    :func:`minigrad.autograd.backward`; each ``next()`` runs the engine to its next
    :class:`EngineEvent`. Exhausting the generator completes the pass."""
    return _steps(*_prepare(*_backward_arguments(tensors, grad_tensors, retain_graph,
                                                 create_graph, inputs)))


class record_events:
    """Collect the :class:`EngineEvent` of every pass run inside the ``with`` block::

        with record_events() as events:
            loss.backward()
    """

    def __enter__(self):
        self.events = []
        if _local.recorders is None:
            _local.recorders = []
        _local.recorders.append(self.events)
        return self.events

    def __exit__(self, *exc):
        _local.recorders.remove(self.events)
        return False


# --- the seam: plug in an engine of your own (lesson 10) -----------------------------------
#
# ``with use(my_run_backward): loss.backward()`` runs the pass on ``my_run_backward``.
#
# Contract. minigrad calls ``my_run_backward(root, grad_outputs, keep_graph)`` with
#
# * ``root``: the node the pass starts at (``loss.grad_fn``, an ``AccumulateGrad`` when
#   the root is a leaf, or a ``GraphRoot`` above several roots);
# * ``grad_outputs``: the root's input buffer, a list with one gradient per input slot;
# * ``keep_graph``: ``retain_graph``; when false, call ``node.release_variables()``
#   after a node ran.
#
# It must run every node reachable from ``root`` once, in the order PyTorch's engine
# does, with every hook, then drain :func:`final_callbacks`, and return nothing.
# Around the call minigrad has already set up what the rest of the library relies on:
# grad mode (on only for ``create_graph``), the current graph task (so hooks can
# ``queue_callback``, multi-grad hooks see which nodes will run, checkpointing knows
# its pass) and its pruning information.
#
# A node is read through its public surface (``node.next_functions``,
# ``node._sequence_nr()``, ``node.name()``, ``node.release_variables()``,
# ``isinstance(node, AccumulateGrad)``, ``node.variable``) and the helpers under "what the
# engine reads from a node" above (this engine runs them too), which stand for what
# PyTorch's ``call_function`` reads from a ``Node`` in C++. The rest of a pass,
# ``compute_dependencies``, the ready queue and ``add_to_input_buffer``, is the engine's
# own work, which a plugged-in engine writes for itself.
#
# Scope: ``backward()`` and ``Tensor.backward()``. ``autograd.grad`` and
# ``backward(inputs=...)`` (which prune the graph and capture gradients) keep running
# on minigrad's engine.

def use(run_backward):
    """Run every ``backward()`` inside the ``with`` block on ``run_backward(root,
    grad_outputs, keep_graph)`` (the contract is in the comment above this function in
    ``minigrad/autograd/engine.py``). Nests; per thread. There is no PyTorch
    counterpart: PyTorch's engine is C++ and cannot be swapped from Python."""
    @contextlib.contextmanager
    def swapped():
        stack = _local.custom
        if stack is None:
            stack = _local.custom = []
        stack.append(run_backward)
        try:
            yield run_backward
        finally:
            stack.pop()
    return swapped()


def real_engine_runs():
    """How many times minigrad's own engine has started a pass or run a node, on any
    thread (a pass handed to another thread counts too): a check compares it before and
    after a pass to know which engine ran. No PyTorch counterpart."""
    return _real_runs[0]


def final_callbacks():
    """The current pass's final callbacks (``queue_callback``), a list that grows while
    they run (a callback may queue another): run them in order, re-reading its length."""
    task = _current_graph_task()
    if task is None:
        raise RuntimeError("final_callbacks() is only available during a backward pass.")
    return task.final_callbacks
