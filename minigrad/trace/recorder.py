"""Record real torch backward passes as minigrad ``EngineEvent`` records.

PyTorch's engine (``torch/csrc/autograd/engine.cpp``) runs a pass in C++. At each
node it runs, in this order: the tensor hooks of the node's outputs
(``Tensor.register_hook``), the ``retain_grad`` hooks, the node's pre-hooks
(``Node.register_prehook``), the node (an ``AccumulateGrad`` node accumulates, then
runs the leaf's post-accumulate-grad hooks), then the node's post-hooks
(``Node.register_hook``). Final callbacks (``queue_callback``) run after the last node.

Every Python hook is reached through a Python object that can be watched without
changing what it does:

- each pass starts in ``Variable._execution_engine.run_backward`` (``backward()``
  and ``autograd.grad`` both go there): for the pass, the recorder puts one pre-hook
  and one post-hook of its own on every node reachable from the roots (PyTorch's
  debug logging does the same, ``_register_logging_hooks_on_whole_graph``) and
  removes them afterwards;
- tensor hooks live in ``t._backward_hooks``, post-accumulate-grad hooks in
  ``t._post_accumulate_grad_hooks``, node hooks in the dict that
  ``torch.autograd.Function._register_hook`` returns to the C++ node: the recorder
  replaces each entry by a wrapper that calls the hook with the same arguments,
  returns its result unchanged, and notes the call; the original entries are put
  back when the block ends. Hooks registered inside the block are wrapped as they
  are registered; tensor hooks registered earlier are found on the tensors; node
  hooks registered earlier are found when the recorder registers its own hook on
  the same node (torch hands that node's dict to ``_register_hook``);
- ``torch._C._current_autograd_node()`` (the node the engine is running, which
  PyTorch's debug logging reads too) says which node a hook call belongs to;
- a ``retain_grad`` hook is C++ code: the recorder knows which tensors retain their
  gradient (``retain_grad`` is watched inside the block, and tensors that already
  retain it are found when the block starts) and reports the gradient each one
  stores, just before the node's pre-hooks run;
- ``Variable._execution_engine.queue_callback`` wraps each final callback.

What cannot be seen, so is not recorded: the node's own computation (minigrad's
``"apply"`` event) and ``autograd.grad``'s capture of a gradient (``"capture"``) are
C++ with no Python hook point. A node that ``autograd.grad`` only captures at (not
needed to go further) runs no pre-hook: it appears only if it has tensor hooks,
and its ``retain_grad`` is not reported. C++ hooks (a C++ extension's, DDP's) are
not Python and not seen. Passes not started from Python (compiled autograd) are
not seen.

What recording changes, and how that is undone: a node that had no Python
post-hook gets one for the pass; PyTorch keeps a copy of the node's incoming
gradients when a node has post-hooks, and a post-hook registered *while the node
runs* receives ``grad_outputs == ()`` only when the node had none. The recorder
passes that hook ``()`` itself, so the pass sees what it would see unrecorded. The
emptied post-hook slot stays on the node after the block (PyTorch has no way to
remove it): a later pass over a retained graph then hands ``grad_outputs`` to such
a late post-hook. Events keep no torch node alive: they hold :class:`TorchNode`
stand-ins (a leaf's ``AccumulateGrad`` node must die with its graph, taking its
node hooks with it), copies of the gradients, and the hooks weakly.
"""
import gc
import itertools
import threading
import weakref

import torch
from torch.autograd import Variable as _Variable

from minigrad.autograd.engine import EngineEvent as _EngineEvent
from minigrad.autograd._names import hook_name as _hook_name

__all__ = ["TorchRecorder", "TorchNode", "RecordedHook", "Recording",
           "PassRecord"]

_local = threading.local()          # the stack of passes being recorded, per thread
_active = []                        # the one recording of this process, if any


def _passes():
    stack = getattr(_local, "passes", None)
    if stack is None:
        stack = _local.passes = []
    return stack


class TorchNode:
    """What an event keeps of a torch graph node: ``name()``, ``next_functions``
    (edges to other stand-ins) and, for ``AccumulateGrad``, ``variable`` (the leaf).
    The same graph API as torch and minigrad nodes, so minigrad.viz draws it."""

    def __init__(self, name, variable=None, has_variable=False):
        self._name = name
        self.next_functions = ()
        if has_variable:
            self.variable = variable

    def name(self):
        return self._name

    def __repr__(self):
        return f"<recorded {self._name}>"


class RecordedHook:
    """A hook in an event: its ``__name__`` and ``hook`` (the callable itself while
    something else keeps it alive; a recording must not extend its life)."""

    def __init__(self, hook):
        self.__name__ = _hook_name(hook)
        try:
            self._ref = weakref.ref(hook)
        except TypeError:
            self._ref = lambda: None

    @property
    def hook(self):
        return self._ref()

    def __repr__(self):
        return f"<hook {self.__name__}>"


def _copy(value):
    """Tensors as they are now: a later in-place update must not change a record.
    A hook's arguments are copied when it returned (minigrad's engine, too, reports a
    hook once it ran), a node's incoming gradients before its first hook."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (tuple, list)):
        return tuple(_copy(v) for v in value)
    return value


class _Wrapped:
    """Stands in a hook dict for a user hook; calls it unchanged and reports the call.
    Attribute lookups (``__name__``, which torch's error messages quote) reach the hook."""

    def __init__(self, hook, kind, slot=0, late_post=False):
        self._hook = hook
        self._kind = kind            # "tensor", "post_accumulate" or "node"
        self._slot = slot            # which input of the node a tensor hook sees
        self._late_post = late_post  # registered while its node ran, with no post-hooks before

    def __getattr__(self, name):
        return getattr(self._hook, name)

    def __call__(self, *args):
        stack = _passes()
        if not stack:
            return self._hook(*args)
        p = stack[-1]
        if self._kind == "tensor":
            return p.tensor_hook(self._hook, self._slot, args[0])
        if self._kind == "post_accumulate":
            return p.post_accumulate_hook(self._hook, args[0])
        if len(args) == 1:
            return p.pre_hook(self._hook, args[0])
        return p.post_hook(self._hook, args[0], args[1], self._late_post)


class _Visit:
    """One node's turn in a pass."""

    def __init__(self, real, node, index):
        self.real = real
        self.node = node
        self.index = index            # where its node_start goes in the pass's events
        self.buffer = {}              # input slot -> gradient as it arrived
        self.pre_phase = False        # the node's pre-hooks started
        self.in_pre_hook = False
        self.ours_pre_done = False
        self.outputs = None           # set by our post-hook: the node ran to its end


class _Pass:
    """The recording of one ``run_backward`` call."""

    def __init__(self, recording, roots, grads):
        self.recording = recording
        self.events = []
        self.real = {}                # id(torch node) -> torch node, during the pass only
        self.stand_in = {}            # id(torch node) -> TorchNode
        self.pre_dicts = {}           # id(hook dict) -> id(node): learnt from our own hooks
        self.post_dicts = {}
        self.no_post_hooks = set()    # ids of nodes that had no Python post-hook before ours
        self.handles = []
        self.visit = None
        self.pending = []             # GraphRoot's events, written once the pass runs
        self.root_buffer = None       # (id(root node), slot, gradient)
        self.roots = self._build_graph(roots, grads)

    # --- before the pass --------------------------------------------------------------
    def _node(self, real):
        key = id(real)
        if key not in self.stand_in:
            is_leaf = hasattr(real, "variable")
            self.real[key] = real
            self.stand_in[key] = TorchNode(str(real.name()), getattr(real, "variable", None),
                                           has_variable=is_leaf)
        return self.stand_in[key]

    def _build_graph(self, roots, grads):
        queue, seen = [], set()
        root_edges = []
        for real, nr in roots:
            root_edges.append((None if real is None else self._node(real), nr))
            if real is not None and id(real) not in seen:
                seen.add(id(real))
                queue.append(real)
        while queue:
            real = queue.pop(0)
            edges = []
            for nxt, nr in real.next_functions:
                edges.append((None if nxt is None else self._node(nxt), nr))
                if nxt is not None and id(nxt) not in seen:
                    seen.add(id(nxt))
                    queue.append(nxt)
            self.stand_in[id(real)].next_functions = tuple(edges)
            if hasattr(real, "variable"):
                self.recording.watch_tensor(real.variable)
            self._attach(real)
        if len(root_edges) > 1:
            # engine.cpp puts a GraphRoot above several roots; it has no hooks to watch,
            # so its turn is written when the first node after it runs: it hands each
            # root its gradient.
            graph_root = TorchNode("GraphRoot")
            graph_root.next_functions = tuple(root_edges)
            self.pending = [_EngineEvent("node_start", graph_root, None, (), None),
                            _EngineEvent("node_done", graph_root, None, _copy(tuple(grads)), None)]
            return [graph_root]
        if root_edges and root_edges[0][0] is not None and grads:
            # The engine starts the root with its gradient in the input slot of the edge.
            self.root_buffer = (id(roots[0][0]), root_edges[0][1], _copy(grads[0]))
        return [edge[0] for edge in root_edges if edge[0] is not None]

    def _attach(self, real):
        recording = self.recording
        recording.registering = ("pre", real, self)
        try:
            self.handles.append(real.register_prehook(self._ours_pre))
            recording.registering = ("post", real, self)
            self.handles.append(real.register_hook(self._ours_post))
        finally:
            recording.registering = None

    def detach(self):
        for handle in self.handles:
            handle.remove()
        self.handles = []
        self.real.clear()

    # --- events -------------------------------------------------------------------------
    def _append(self, event):
        self.events.append(event)
        self.recording.append(event)

    def _reserve(self):
        self.events.append(None)
        self.recording.append(None)
        return len(self.events) - 1, len(self.recording) - 1

    def _current(self):
        real = torch._C._current_autograd_node()
        if real is None:
            return None
        visit = self.visit
        if visit is not None and visit.real is real:
            return visit
        self._close(done=True)
        for event in self.pending:
            self._append(event)
        self.pending = []
        self.visit = _Visit(real, self._node(real), self._reserve())
        if self.root_buffer is not None and self.root_buffer[0] == id(real):
            self.visit.buffer[self.root_buffer[1]] = self.root_buffer[2]
            self.root_buffer = None
        return self.visit

    def _close(self, done):
        visit, self.visit = self.visit, None
        if visit is None:
            return
        slots = range(max(visit.buffer) + 1) if visit.buffer else ()
        start = _EngineEvent("node_start", visit.node, None,
                            tuple(visit.buffer.get(i) for i in slots), None)
        self.events[visit.index[0]] = start
        self.recording[visit.index[1]] = start
        if done and visit.outputs is not None:
            self._append(_EngineEvent("node_done", visit.node, None, visit.outputs, None))

    def _enter_pre_phase(self, visit, grad_outputs):
        """The first pre-hook of a node: its tensor hooks and retain_grad hooks ran."""
        if visit.pre_phase:
            return
        visit.pre_phase = True
        for i, grad in enumerate(grad_outputs):
            visit.buffer.setdefault(i, _copy(grad))
        for tensor in self.recording.retaining(visit.real):
            grad = grad_outputs[tensor.output_nr]
            self._append(_EngineEvent("retain_grad", visit.node, None, (_copy(grad),), None))

    def tensor_hook(self, hook, slot, grad):
        visit = self._current()
        if visit is None:
            return hook(grad)
        visit.buffer.setdefault(slot, _copy(grad))
        result = hook(grad)
        self._append(_EngineEvent("tensor_hook", visit.node, RecordedHook(hook), (_copy(grad),),
                                 _copy(result)))
        return result

    def pre_hook(self, hook, grad_outputs):
        visit = self._current()
        if visit is None:
            return hook(grad_outputs)
        self._enter_pre_phase(visit, grad_outputs)
        visit.in_pre_hook = True
        try:
            result = hook(grad_outputs)
        finally:
            visit.in_pre_hook = False
        self._append(_EngineEvent("pre_hook", visit.node, RecordedHook(hook),
                                 (_copy(grad_outputs),), _copy(result)))
        return result

    def post_accumulate_hook(self, hook, tensor):
        visit = self._current()
        result = hook(tensor)
        if visit is not None:
            self._append(_EngineEvent("post_accumulate_hook", visit.node, RecordedHook(hook),
                                     (_copy(tensor),), None))
        return result

    def post_hook(self, hook, grad_inputs, grad_outputs, late):
        visit = self._current()
        if visit is None:
            return hook(grad_inputs, grad_outputs)
        if late:
            grad_outputs = ()
        result = hook(grad_inputs, grad_outputs)
        self._append(_EngineEvent("post_hook", visit.node, RecordedHook(hook),
                                 (_copy(grad_inputs), _copy(grad_outputs)), _copy(result)))
        if result is not None and visit.outputs is not None:
            visit.outputs = _copy(result)       # a post-hook registered after ours
        return result

    def _ours_pre(self, grad_outputs):
        if _passes()[-1:] != [self]:
            return None                          # a nested pass over the same node
        visit = self._current()
        if visit is not None:
            self._enter_pre_phase(visit, grad_outputs)
            visit.ours_pre_done = True
        return None

    def _ours_post(self, grad_inputs, grad_outputs):
        if _passes()[-1:] != [self]:
            return None
        visit = self._current()
        if visit is not None:
            visit.outputs = _copy(grad_inputs)
        return None

    def callback(self, callback):
        self._close(done=True)
        callback()
        self._append(_EngineEvent("callback", None, RecordedHook(callback), (), None))

    # --- hook registration while this pass runs ---------------------------------------
    def registered_ours(self, kind, real, hooks_dict):
        """Our hook goes into ``hooks_dict``: now that dict is known to be ``real``'s."""
        if kind == "pre":
            self.pre_dicts[id(hooks_dict)] = id(real)
        else:
            self.post_dicts[id(hooks_dict)] = id(real)

    def is_late_post_hook(self, hooks_dict):
        """A post-hook registered now, on the node running now, after its pre-hooks:
        unrecorded, it would receive ``grad_outputs == ()`` if the node had no
        post-hook when it started (the engine decides before running the node)."""
        visit = self.visit
        node_id = self.post_dicts.get(id(hooks_dict))
        if node_id is None or visit is None or id(visit.real) != node_id:
            if node_id is not None:
                self.no_post_hooks.discard(node_id)   # registered before that node ran
            return False
        in_run = visit.ours_pre_done and not visit.in_pre_hook
        if not in_run:
            self.no_post_hooks.discard(node_id)
        return in_run and node_id in self.no_post_hooks

    def finish(self, ok):
        self._close(done=ok)


class Recording(list):
    """The events of every pass recorded in the block, in order (a list, as
    ``record_events`` gives); ``passes`` holds one :class:`PassRecord` per pass."""

    def __init__(self):
        super().__init__()
        self.passes = []
        self.registering = None
        self._wrapped = []            # (weakref to hook dict, key, wrapper, original)
        self._retainers = {}          # id(tensor) -> weakref, tensors that retain_grad
        self._order = itertools.count()

    # --- wrapping hooks -------------------------------------------------------------------
    def _wrap_dict(self, hooks_dict, make):
        if not hooks_dict:
            return
        for key, hook in list(hooks_dict.items()):
            if not isinstance(hook, _Wrapped):
                wrapper = make(hook)
                hooks_dict[key] = wrapper
                self._wrapped.append((weakref.ref(hooks_dict), key, wrapper, hook))

    def watch_tensor(self, tensor):
        slot = 0 if tensor.grad_fn is None else tensor.output_nr
        self._wrap_dict(tensor._backward_hooks, lambda h: _Wrapped(h, "tensor", slot))
        self._wrap_dict(tensor._post_accumulate_grad_hooks,
                        lambda h: _Wrapped(h, "post_accumulate"))
        if tensor.retains_grad:
            self._retainers[id(tensor)] = (next(self._order), weakref.ref(tensor))

    def retaining(self, real):
        """Live tensors whose retain_grad hook sits on node ``real``, by output number."""
        found = []
        for order, ref in sorted(self._retainers.values(), key=lambda item: item[0]):
            tensor = ref()
            if tensor is not None and tensor.retains_grad and tensor.grad_fn is real:
                found.append(tensor)
        return sorted(found, key=lambda t: t.output_nr)

    def register_node_hook(self, original, hooks_dict, hook):
        """Our stand-in for ``torch.autograd.Function._register_hook``."""
        if self.registering is not None:
            kind, real, p = self.registering
            if hooks_dict is not None:
                p.registered_ours(kind, real, hooks_dict)
                self._wrap_dict(hooks_dict, lambda h: _Wrapped(h, "node"))
            elif kind == "post":
                p.no_post_hooks.add(id(real))
            hooks_dict, handle = original(hooks_dict, hook)
            if hooks_dict is not None:
                p.registered_ours(kind, real, hooks_dict)
            return hooks_dict, handle
        stack = _passes()
        late = stack[-1].is_late_post_hook(hooks_dict) if stack and hooks_dict is not None else False
        hooks_dict, handle = original(hooks_dict, hook)
        wrapper = _Wrapped(hook, "node", late_post=late)
        hooks_dict[handle.id] = wrapper
        self._wrapped.append((weakref.ref(hooks_dict), handle.id, wrapper, hook))
        return hooks_dict, handle

    def unwrap_all(self):
        for ref, key, wrapper, hook in reversed(self._wrapped):
            hooks_dict = ref()
            if hooks_dict is not None and hooks_dict.get(key) is wrapper:
                hooks_dict[key] = hook
        self._wrapped = []

    # --- passes ---------------------------------------------------------------------------
    def run_backward(self, run, t_outputs, args, kwargs):
        roots = []
        for out in t_outputs:
            try:
                if isinstance(out, torch.Tensor) and out.grad_fn is not None:
                    roots.append((out.grad_fn, out.output_nr))
                else:       # a leaf (its AccumulateGrad) or a GradientEdge
                    edge = torch.autograd.graph.get_gradient_edge(out) \
                        if isinstance(out, torch.Tensor) else out
                    roots.append((edge.node, edge.output_nr))
            except RuntimeError:
                pass                               # the engine reports it
        grads = args[0] if args else kwargs.get("grad_tensors", ())
        if kwargs.get("accumulate_grad", args[5] if len(args) > 5 else False):
            # backward(inputs=[non-leaf]) makes the engine call retain_grad on it in C++.
            inputs = args[3] if len(args) > 3 else kwargs.get("inputs", ())
            for tensor in inputs or ():
                if isinstance(tensor, torch.Tensor) and tensor.grad_fn is not None:
                    self._retainers[id(tensor)] = (next(self._order), weakref.ref(tensor))
        p = _Pass(self, roots, grads)
        self.passes.append(PassRecord(p.events, p.roots))
        stack = _passes()
        stack.append(p)
        ok = False
        try:
            result = run(t_outputs, *args, **kwargs)
            ok = True
            return result
        finally:
            p.finish(ok)
            stack.remove(p)
            p.detach()


class PassRecord:
    """One recorded pass: its ``events`` and its ``roots`` (:class:`TorchNode`), to
    draw the graph it ran on with ``minigrad.viz.draw_graph(*roots)``."""

    def __init__(self, events, roots):
        self.events = events
        self.roots = roots


class _EngineProxy:
    """Stands in for ``Variable._execution_engine`` during the block."""

    def __init__(self, engine, recording):
        self._engine = engine
        self._recording = recording

    def run_backward(self, t_outputs, *args, **kwargs):
        return self._recording.run_backward(self._engine.run_backward, t_outputs, args, kwargs)

    def queue_callback(self, callback):
        stack = _passes()
        if not stack:
            return self._engine.queue_callback(callback)
        p = stack[-1]

        def recorded_callback():
            p.callback(callback)
        recorded_callback.__name__ = _hook_name(callback)
        return self._engine.queue_callback(recorded_callback)

    def __getattr__(self, name):
        return getattr(self._engine, name)


class TorchRecorder:
    """What ``minigrad.trace.torch_events()`` returns: ``with TorchRecorder() as events:``
    records every real torch backward pass (``Tensor.backward``,
    ``torch.autograd.backward``, ``torch.autograd.grad``) run in the block as minigrad
    :class:`~minigrad.autograd.engine.EngineEvent` records: ``node_start`` /
    ``node_done`` (a node's incoming gradients, and the gradients it handed on),
    ``tensor_hook``, ``retain_grad``, ``pre_hook``, ``post_accumulate_hook``,
    ``post_hook`` (module backward hooks are post-hooks on
    ``BackwardHookFunctionBackward`` nodes) and ``callback``. ``events`` is a list;
    ``events.passes`` has one :class:`PassRecord` per pass.

    Not recorded, because PyTorch runs them in C++ without a Python hook point:
    ``apply`` and ``capture`` (see this module's docstring for the rest of what is
    and is not seen). The recorded pass computes exactly what it computes
    unrecorded: the same gradients, hooks in the same order with the same arguments.

    The block may hold forward and backward; hooks registered before it are found
    too (tensor hooks through the tensors, node hooks through their node's hook
    dict). One recording at a time per process.
    """

    def __enter__(self):
        if _active:
            raise RuntimeError("torch_events() is already recording: nest the backward "
                               "passes in one block instead of opening a second one")
        self.events = Recording()
        self._patches = []
        events = self.events
        Function = torch.autograd.Function
        original_register = Function._register_hook

        def _register_hook(hooks_dict, hook):
            return events.register_node_hook(original_register, hooks_dict, hook)

        def register_hook(tensor, hook):
            handle = original_tensor_register(tensor, hook)
            events.watch_tensor(tensor)
            return handle

        def register_post_accumulate_grad_hook(tensor, hook):
            handle = original_post_register(tensor, hook)
            events.watch_tensor(tensor)
            return handle

        def retain_grad(tensor):
            result = original_retain(tensor)
            events.watch_tensor(tensor)
            return result

        original_tensor_register = torch.Tensor.register_hook
        original_post_register = torch.Tensor.register_post_accumulate_grad_hook
        original_retain = torch.Tensor.retain_grad
        self._patch(Function, "_register_hook", staticmethod(_register_hook))
        self._patch(torch.Tensor, "register_hook", register_hook)
        self._patch(torch.Tensor, "register_post_accumulate_grad_hook",
                    register_post_accumulate_grad_hook)
        self._patch(torch.Tensor, "retain_grad", retain_grad)
        self._patch(_Variable, "_execution_engine",
                    _EngineProxy(_Variable._execution_engine, events))
        for obj in gc.get_objects():           # hooks registered before the block
            if issubclass(type(obj), torch.Tensor) and obj.requires_grad:
                events.watch_tensor(obj)
        _active.append(self)
        return events

    def _patch(self, owner, name, value):
        had = name in owner.__dict__
        self._patches.append((owner, name, had, owner.__dict__.get(name)))
        setattr(owner, name, value)

    def __exit__(self, *exc):
        for owner, name, had, value in reversed(self._patches):
            if had:
                setattr(owner, name, value)
            else:
                delattr(owner, name)
        self.events.unwrap_all()
        _active.remove(self)
        return False
