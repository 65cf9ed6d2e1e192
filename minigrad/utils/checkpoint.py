"""Activation checkpointing, both of PyTorch's variants.

PyTorch counterpart: ``torch/utils/checkpoint.py``.

**Non-reentrant** (``use_reentrant=False``, PyTorch's recommended one), built on
saved-tensor hooks. The idea fits in two hooks:

* **pack** (forward): every tensor an op inside ``fn`` saves for backward is replaced
  by its *position* in the sequence of saved tensors, a plain int. The activations
  themselves are not kept, so they are freed as soon as the forward moves on.
* **unpack** (backward): the first time a saved value is needed in a backward pass,
  ``fn`` is run again on (detached copies of) the same inputs, with a pack hook that
  *records* each saved tensor; the recomputed value at that position is returned.
  Later unpacks in the same pass reuse that recomputation.

The graph built by the first forward is the one backward runs, so gradients are
identical; the price is one extra forward of ``fn`` per backward pass. As in PyTorch,
the recomputation stops early, as soon as it has saved as many tensors as the first
forward did (so the rest of ``fn``, and forward hooks of a checkpointed module, do not
run again); ``set_checkpoint_early_stop(False)`` runs ``fn`` to the end instead. The random
generator's state is saved and restored around the recomputation (``Dropout`` draws
the same mask twice), as PyTorch's ``preserve_rng_state=True`` does.

**Reentrant** (``use_reentrant=True``, PyTorch's older default): a custom Function,
``CheckpointFunction``. Its forward runs ``fn`` under ``no_grad`` (no graph at all
inside); its backward runs ``fn`` again with grad on, from detached copies of the
inputs, and then calls ``autograd.backward`` on that fresh graph *from inside the
outer backward pass*: a reentrant pass with its own graph task, final callbacks and
grad mode, after which the outer pass continues. Hooks registered inside ``fn``
therefore live on the recomputed graph and fire inside the node
``CheckpointFunctionBackward``; the first forward's tensors do not require grad.
It cannot serve ``autograd.grad`` or ``backward(inputs=...)`` (the inner pass would
accumulate into ``.grad`` and knows nothing of the outer pass's inputs).
"""
import contextlib
import warnings

from .. import _creation, autograd, grad_mode
from .._tensor import Tensor as _Tensor
from ..autograd import engine
from ..autograd.function import Function as _Function
from ..autograd.graph import saved_tensors_hooks as _saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "set_checkpoint_early_stop",
           "CheckpointFunction"]

_early_stop = [True]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """``torch.utils.checkpoint.set_checkpoint_early_stop(enable)``: a context manager
    choosing whether checkpoints made inside it stop recomputing once every saved tensor
    is back (default True)."""
    previous = _early_stop[0]
    _early_stop[0] = enable
    try:
        yield
    finally:
        _early_stop[0] = previous


class _StopRecomputation(Exception):
    """Raised by the recording pack hook once the last needed tensor is recomputed."""


class _Handle:
    """What pack keeps for one saved tensor: its position, and the frame to recompute
    it from. When the engine frees the saved value, the handle dies and tells the frame."""

    __slots__ = ("frame", "index")

    def __init__(self, frame, index):
        self.frame = frame
        self.index = index

    def __del__(self):
        self.frame.release()


class _Frame:
    """What one checkpointed call shares between its pack and unpack hooks."""

    def __init__(self, fn, args, kwargs, rng_state):
        self.early_stop = _early_stop[0]
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.rng_state = rng_state
        self.count = 0                  # saved tensors packed during the forward
        self.recomputed = {}            # graph task id -> [saved tensors, in pack order]
        self.live = 0                   # packed values not yet freed

    def pack(self, tensor):
        handle = _Handle(self, self.count)
        self.count += 1
        self.live += 1
        return handle

    def release(self):
        # The last packed value is gone (the engine freed the graph's saved values):
        # nothing can be recomputed any more, so let go of the inputs.
        self.live -= 1
        if self.live == 0:
            self.args = self.kwargs = None
            self.recomputed = {}

    def unpack(self, handle):
        index = handle.index
        # Each recomputed value is handed out once and then forgotten, so it is freed
        # as soon as its node is done (the engine unpacks a value once per node call).
        # Asked again in the same pass (say, a direct ``grad_fn._saved_self``), we
        # recompute again rather than keep every value alive to the end of backward.
        task = engine.current_graph_task_id()
        values = self.recomputed.get(task)
        if values is None or index not in values:
            values = self._recompute()
            self.recomputed = {task: values}     # one pass's values at a time
        if index not in values:
            raise RuntimeError(
                "torch.utils.checkpoint: the recomputed forward saved fewer tensors "
                f"({len(values)}) than the original one ({self.count}); fn must compute the "
                "same thing when it is run again.")
        return values.pop(index)

    def _recompute(self):
        """Run ``fn`` again and collect what it saves. As PyTorch's default
        (``early_stop=True``), the run stops as soon as the last of the ``count`` saved
        tensors is packed: the rest of ``fn`` (and any print or hook registration in
        it) does not run again."""
        saved = []
        inputs = tuple(_detached(a) for a in self.args)

        def record(t):
            saved.append(_detached_data(t))
            if self.early_stop and len(saved) == self.count:
                raise _StopRecomputation
            return len(saved) - 1

        try:
            with _rng_restored(self.rng_state), grad_mode.enable_grad(), \
                    _saved_tensors_hooks(record, lambda i: saved[i]):
                self.fn(*inputs, **self.kwargs)
        except _StopRecomputation:
            pass
        return dict(enumerate(saved))


def _detached(a):
    """A new leaf sharing ``a``'s data, requiring grad as ``a`` does: the recomputed
    graph hangs off it instead of off the original graph."""
    if not isinstance(a, _Tensor):
        return a
    d = _Tensor._wrap(a._array, a._version_counter)
    if a.requires_grad:
        d.requires_grad = True
    return d


def _detached_data(t):
    # Only the data is needed (the saving node re-attaches grad_fn and requires_grad
    # on unpack); keeping the recomputed tensor itself would keep its throw-away graph.
    return _Tensor._wrap(t._array, t._version_counter)


@contextlib.contextmanager
def _rng_restored(state):
    if state is None:
        yield
        return
    generator = _creation._generator[0]
    current = generator.bit_generator.state
    generator.bit_generator.state = state
    try:
        yield
    finally:
        generator.bit_generator.state = current


class CheckpointFunction(_Function):
    """PyTorch's ``CheckpointFunction``: the reentrant checkpoint (see the module
    docstring). Its node is ``CheckpointFunctionBackward``."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        _check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = _creation._generator[0].bit_generator.state
        # Non-tensor arguments are kept as they are; tensors are saved for backward.
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, _Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if not engine.is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, index in enumerate(ctx.tensor_indices):
            inputs[index] = ctx.saved_tensors[i]
        with _rng_restored(ctx.fwd_rng_state if ctx.preserve_rng_state else None):
            detached = tuple(_detached(a) for a in inputs)
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _Tensor):
            outputs = (outputs,)
        if len(grad_outputs) != len(outputs):
            # minigrad's Function gives gradient slots to tensor outputs only; PyTorch's
            # gives every output one (None for a non-tensor). Line them up as PyTorch does.
            given = iter(grad_outputs)
            grad_outputs = [next(given) if isinstance(o, _Tensor) else None for o in outputs]
        with_grad, grads = [], []
        for out, g in zip(outputs, grad_outputs):
            if isinstance(out, _Tensor) and out.requires_grad:
                with_grad.append(out)
                grads.append(g)
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        # The reentrant pass: the engine runs it to the end right here, inside this node.
        autograd.backward(with_grad, grads)
        return (None, None) + tuple(a.grad if isinstance(a, _Tensor) else None for a in detached)


def _check_backward_validity(args):
    if not any(a.requires_grad for a in args if isinstance(a, _Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=4)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """``torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=...)``.

    Runs ``function(*args, **kwargs)`` now, keeping none of its intermediate
    activations; they are recomputed during backward. As in PyTorch, leaving out
    ``use_reentrant`` warns and means ``True``; ``False`` is the recommended variant."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    rng_state = _creation._generator[0].bit_generator.state if preserve_rng_state else None
    frame = _Frame(function, args, kwargs, rng_state)
    with _saved_tensors_hooks(frame.pack, frame.unpack):
        out = function(*args, **kwargs)
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """``checkpoint_sequential``: split a Sequential (or list of modules) into
    ``segments`` chunks and checkpoint each chunk but the last. Leaving out
    ``use_reentrant`` warns and means ``True``, as in PyTorch."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = -(-len(functions) // segments)

    def run(chunk):
        def forward(x):
            for f in chunk:
                x = f(x)
            return x
        return forward

    chunks = [functions[i:i + size] for i in range(0, len(functions), size)]
    for chunk in chunks[:-1]:
        input = checkpoint(run(chunk), input, use_reentrant=use_reentrant, **kwargs)
    return run(chunks[-1])(input)
