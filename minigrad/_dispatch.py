"""Op dispatch: how a row of the op table (``_ops.py``) becomes a forward result and a node.

PyTorch counterpart: the generated ``VariableType`` wrappers. :func:`apply_op` is the
one entry point every op goes through: op-level forward hooks, the numpy forward, and
(when grad mode is on and an input requires grad) the backward node with its edges and
saved values.
"""
import numpy as np

from . import _float_errors, _meta, _tensor_class, grad_mode
from .amp import autocast_mode
from .autograd import op_hooks
from .autograd.graph import Node, SavedTensor, gradient_edge
from .utils import _python_dispatch


class Op:
    """One row of the table.

    ``inputs`` names the tensor arguments as PyTorch's derivatives.yaml does
    (``self``, ``other``, ...); ``None`` for a variadic op (``cat``, ``stack``), whose
    ``grads`` is then one ``formula(g, ctx, index)``. ``saves`` maps a saved name to the
    input whose gradient needs it (``None``: always saved), in PyTorch's packing order;
    the names ``result``, ``result1``, ``indices`` mean the op's outputs. ``grads`` maps
    an input name to ``formula(g, ctx)`` where ``ctx`` reads saved values and attributes
    (``ctx.other``, ``ctx.dim``).

    ``saved_attrs`` names the non-tensor values PyTorch's node saves, in its spelling
    (``dim``, ``keepdim``, ``self_sym_sizes``). The ``<input>_sym_sizes``,
    ``<input>_sym_strides``, ``<input>_sym_numel`` (...) ones are read off the input when
    the node is made, and the forward never receives them; the others are the op's call
    arguments. A node shows exactly these and the saved tensors as ``_saved_<name>``;
    other call arguments are the forward's and the formulas' business only.

    ``aten`` is the overload a ``TorchDispatchMode`` sees (``str(func)`` reads
    ``aten.<aten>``): ``mul.Tensor``, ``sum.dim_IntList``; ``<name>.default`` unless given.

    A row checks its names when it is built (a typo fails at import, naming the row),
    and a formula that reads a name its row does not have gets an AttributeError that
    lists the names it has.
    """

    __slots__ = ("name", "node_name", "forward", "inputs", "saves", "grads", "saved_attrs",
                 "metadata", "multi_output", "casts", "view", "node_class", "save_plan", "grad_plan", "aten")

    def __init__(self, name, node_name, forward, inputs=("self",), saves=None, grads=None,
                 saved_attrs=(), multi_output=False, casts=False, view=False, aten=None):
        self.name = name
        self.aten = aten or f"{name}.default"
        self.node_name = node_name
        self.forward = forward
        self.inputs = inputs
        self.saves = saves or {}
        self.grads = grads or {}
        self.saved_attrs = tuple(saved_attrs)
        self.multi_output = multi_output
        self.casts = casts              # the op sets its output dtype itself (``to``)
        self.view = view                # the output shares data and version counter with self
        self.metadata = tuple(_metadata_reader(self, attr) for attr in self.saved_attrs
                              if attr.rsplit("_sym_", 1)[-1] in _METADATA)
        self.node_class = _node_class(node_name) if node_name else None
        self._check()
        # What _record saves, with names turned into positions once, here:
        # (saved name, is an output, its index, index of the input needing it or None).
        self.save_plan = tuple(
            (name, name in _OUTPUT_NAMES,
             _OUTPUT_NAMES[name] if name in _OUTPUT_NAMES else self.inputs.index(name),
             None if needed_by is None else self.inputs.index(needed_by))
            for name, needed_by in self.saves.items())
        # PyTorch's generated nodes compute their inputs' gradients in the alphabetical
        # order of the inputs' names (``other`` before ``self``, ``mat1`` before ``mat2``);
        # under create_graph that order numbers the nodes the formulas make, and so the
        # order a second backward runs them in. (input name, its position), in that order:
        self.grad_plan = None if self.inputs is None else tuple(
            (name, self.inputs.index(name)) for name in sorted(self.grads))

    def _check(self):
        """Catch a typo in a row when the table is built, not in some later backward."""
        names = set(self.inputs or ())
        unknown = [n for n in self.saves if n not in names and n not in _OUTPUT_NAMES]
        if self.inputs is not None:
            unknown += [n for n in self.grads if n not in names]
        if unknown:
            raise ValueError(f"op row {self.name!r} ({self.node_name}) names {unknown}, which is "
                             f"neither an input {sorted(names)} nor an output {sorted(_OUTPUT_NAMES)}")


# The saved names that mean an output of the op, and which output.
_OUTPUT_NAMES = {"result": 0, "result0": 0, "result1": 1, "indices": 1, "result2": 2}

# The shape metadata PyTorch's nodes keep about an input (``_saved_self_sym_sizes``).
_METADATA = {
    "sizes": lambda t: t._array.shape,
    # PyTorch keeps an input's strides only for that input's own gradient (mm_mat1_backward
    # reads mat1's strides), so they read () when the input does not require grad.
    "strides": lambda t: tuple(s // t._array.itemsize for s in t._array.strides) if t.requires_grad else (),
    "numel": lambda t: t._array.size,
    "argsize_0": lambda t: t._array.shape[0],
    "argsize_minus_1": lambda t: t._array.shape[-1],
    "argsize_minus_2": lambda t: t._array.shape[-2],
}
# An optional input that is absent (conv2d's bias=None) is passed as an empty tensor, so
# its sizes read (0,), as PyTorch shows them.
_METADATA["sizes_opt"] = _METADATA["sizes"]


def _metadata_reader(op, attr):
    """``(attr, input index, reader)`` for an ``<input>_sym_<what>`` saved attribute."""
    input_name, what = attr.rsplit("_sym_", 1)
    if input_name not in (op.inputs or ()):
        raise ValueError(f"op row {op.name!r}: saved attribute {attr!r} names no input of {op.inputs}")
    return attr, op.inputs.index(input_name), _METADATA[what]


_NODE_CLASSES = {}


def _node_class(node_name):
    """One class per PyTorch node name, made once, so ``type(y.grad_fn).__name__`` and
    ``repr(y.grad_fn)`` read ``MulBackward0`` as they do in PyTorch (whose node classes
    are C++ types in no Python module, hence ``__module__ = "builtins"``)."""
    cls = _NODE_CLASSES.get(node_name)
    if cls is None:
        short = node_name.rsplit("::", 1)[-1]       # torch::autograd::CopyBackwards
        cls = _NODE_CLASSES[node_name] = type(short, (OpNode,), {
            "_name": node_name, "__module__": "builtins", "__qualname__": short,
            "__doc__": f"The backward node PyTorch calls ``{node_name}``."})
    return cls


class _Saved:
    """What a formula sees as ``ctx``: the op's attributes (``ctx.alpha``) and its saved
    values (``ctx.other``), plain attributes. The saved values are unpacked when it is
    made, once per backward call, in the order they were saved, whichever gradients are
    needed: as PyTorch's generated ``apply()`` does, so an unpack hook runs once per
    value. A saved value shadows an attribute of the same name."""

    def __init__(self, node):
        values = self.__dict__
        values.update(node._attrs)
        for name, saved in node._stored.items():
            values[name] = saved.unpack(node, True)     # (for_backward)
        self._node = node

    def __getattr__(self, name):        # reached only for a name that is not there
        known = sorted(k for k in vars(self) if k != "_node")
        raise AttributeError(f"the {self._node.name()} formula reads ctx.{name}, which its op row "
                             f"neither saves nor passes; it has: {', '.join(known) or 'nothing'}")


class OpNode(Node):
    """The backward node of a table op (each op's node is a subclass named like PyTorch's,
    see ``_node_class``). ``_stored`` holds its SavedTensors; ``_attrs`` the op's call
    arguments and input metadata."""

    def __init__(self, op, next_functions, attrs):
        super().__init__(next_functions)
        self._op = op
        self._attrs = attrs

    def __getattr__(self, attr):
        op = self.__dict__.get("_op")
        if op is not None and attr.startswith("_saved_") and attr[7:] in op.saved_attrs:
            return _as_pytorch_shows(attr[7:], self._attrs[attr[7:]])
        return super().__getattr__(attr)

    def __dir__(self):
        return sorted(set(super().__dir__()) | {"_saved_" + k for k in self._op.saved_attrs})

    def apply(self, grad_outputs, needs_input_grad):
        op = self._op
        ctx = _Saved(self)
        if op.multi_output:
            grad = tuple(grad_outputs)
            if all(g is None for g in grad):
                return (None,) * len(self.next_functions)
        else:
            grad = grad_outputs[0]
            if grad is None:            # no gradient flowed in: none flows out
                return (None,) * len(self.next_functions)
        if op.inputs is None:           # variadic (cat, stack): formula(g, ctx, index)
            return [op.grads(grad, ctx, i) if needed else None
                    for i, needed in enumerate(needs_input_grad)]
        grad_inputs = [None] * len(op.inputs)
        for name, position in op.grad_plan:
            grad_inputs[position] = op.grads[name](grad, ctx) if needs_input_grad[position] else None
        return grad_inputs


# Scalar arguments PyTorch shows as written; its int64 ones (dims, indices) it shows
# as unsigned 64-bit numbers, so a dim of -1 reads 18446744073709551615.
_SCALAR_ATTRS = frozenset({"alpha", "beta", "exponent", "self", "min", "max", "value", "ord", "p", "scale"})


def _as_pytorch_shows(name, value):
    if name in _SCALAR_ATTRS or isinstance(value, bool):
        return value
    if isinstance(value, int) and value < 0:
        return value + 2 ** 64
    if isinstance(value, tuple):
        return tuple(v + 2 ** 64 if isinstance(v, int) and not isinstance(v, bool) and v < 0 else v
                     for v in value)
    return value


def _result_dtype_fix(out, tensors):
    # numpy promotes int64 with float32 (and exp of ints) to float64; PyTorch gives the
    # default dtype, float32, unless a float64 tensor took part.
    # (``dtype.char`` compares a string: a quarter of the time of ``dtype == np.float64``;
    # _kernel checks it before calling, as this runs on every op.)
    if out.dtype.char == "d" and not any(
            t._python_scalar is None and t._array.dtype == np.float64 for t in tensors):
        return out.astype(np.float32)
    return out


def _kernel(op, tensors, attrs):
    """The numpy forward of one op: its output Tensors (a tuple), with no graph."""
    # One pass over the inputs: the arrays to compute on (a wrapped number as its Python
    # scalar) and whether one is float16 or bfloat16. (One loop instead of generator
    # expressions saves ~1 us of the ~10 us an op costs.)
    arrays, low = [], False
    for t in tensors:
        scalar = t._python_scalar
        if scalar is not None:
            arrays.append(scalar)
            continue
        array = t._array
        arrays.append(array)
        if array.dtype.char in _LOW_PRECISION:
            low = True
    low = low and not op.view and not op.casts
    if low:         # PyTorch's CPU float16 and bfloat16: compute in float32, round the result
        arrays = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.char in _LOW_PRECISION
                  else a for a in arrays]
    quiet = _float_errors.silence()         # inf and NaN come in silence, as in PyTorch
    try:
        raw = op.forward(*arrays, **attrs)
        wrap = _tensor_class.Tensor._wrap
        if op.casts:
            outputs = (wrap(raw),)
        elif op.multi_output:
            outputs = tuple(wrap(_result_dtype_fix(np.asarray(r), tensors)) for r in raw)
        else:
            if type(raw) is not np.ndarray:     # a numpy scalar, from a full reduction (or a meta
                raw = raw if type(raw) is _meta.MetaArray else np.asarray(raw)    # array: np.zeros_like)
            if raw.dtype.char == "d":
                raw = _result_dtype_fix(raw, tensors)
            outputs = (wrap(raw),)
    except ValueError:
        _check_broadcastable(tensors)       # numpy's broadcast error names no tensor; PyTorch's does
        raise
    except _meta.MetaComputation:           # a meta input has no data: shapes and dtypes only
        return _meta.run_on_meta(op, tensors, attrs, _kernel)
    finally:
        _float_errors.restore(quiet)

    if low:
        _round_to_low_precision(outputs, tensors)
    return outputs


# numpy's type characters of float16 ("e") and ml_dtypes' bfloat16 ("E")
_LOW_PRECISION = "eE"


def _round_to_low_precision(outputs, tensors):
    """Round the float32 results of an op on float16 or bfloat16 inputs to that dtype,
    when every floating tensor input had it; a float32 or float64 input, or float16 with
    bfloat16, promotes the result to float32 and beyond, as in PyTorch."""
    floating = {t._array.dtype for t in tensors
                if t._python_scalar is None and t._array.dtype.char in "efdE"}
    if len(floating) != 1:
        return
    low = floating.pop()
    if low.char not in _LOW_PRECISION:
        return
    for out in outputs:
        if out._array.dtype.kind == "f":
            with np.errstate(over="ignore"):
                out._array = out._array.astype(low)


def apply_op(op, tensors, attrs=None):
    """Run ``op`` on a tuple of Tensors (Python scalars already wrapped) and return its
    output Tensor (a tuple for multi-output ops)."""
    if attrs is None:
        attrs = {}
    if op_hooks._op_forward_pre_hooks:
        tensors = op_hooks.run_op_forward_pre_hooks(op.name, tensors)
    if autocast_mode._active:           # inside torch.autocast("cpu"): the op's policy casts its inputs
        tensors = autocast_mode.cast_inputs(op, tensors)
    if _python_dispatch._mode_stack:    # a TorchDispatchMode runs instead of the kernel
        outputs = _python_dispatch.dispatch(op, tensors, attrs, _kernel)
    else:
        outputs = _kernel(op, tensors, attrs)
    if op.view:
        base = tensors[0]
        root = base._base if base._base is not None else base
        for out in outputs:         # (every output of unbind is a view)
            out._version_counter = base._version_counter
            out._base = root
            out._attr_version = base._version_counter[0]     # see Tensor.grad_fn
            if base._requires_grad and not grad_mode.is_grad_enabled():
                out._view_created_no_grad = ("inference_mode" if grad_mode.is_inference_mode_enabled()
                                             else "no_grad")
                out._requires_grad = True           # as in PyTorch (see Tensor._no_grad_view_error)
            elif base._view_created_no_grad:
                out._view_created_no_grad = base._view_created_no_grad
    if op.grads and grad_mode.records_graph():
        for t in tensors:
            if t._requires_grad:        # an input needs a gradient: the op gets a node
                _record(op, tensors, attrs, outputs)
                break

    result = outputs if op.multi_output else outputs[0]
    if op_hooks._op_forward_hooks:
        result = op_hooks.run_op_forward_hooks(op.name, tensors, result)
    return result


def _check_broadcastable(tensors):
    """PyTorch's ``infer_size``: two operands whose shapes do not broadcast raise
    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton
    dimension 0", naming the last dimension that differs."""
    shapes = [t._array.shape for t in tensors if t._python_scalar is None]
    if len(shapes) != 2:
        return
    ndim = max(map(len, shapes))
    a, b = ((1,) * (ndim - len(s)) + s for s in shapes)
    for dim in reversed(range(ndim)):
        if a[dim] != b[dim] and 1 not in (a[dim], b[dim]):
            raise RuntimeError(f"The size of tensor a ({a[dim]}) must match the size of tensor b "
                               f"({b[dim]}) at non-singleton dimension {dim}") from None  # not numpy's


def _record(op, tensors, attrs, outputs):
    """Create the backward node of one op application and save what it needs."""
    for attr, index, read in op.metadata:
        attrs[attr] = read(tensors[index])
    node = op.node_class(op, tuple(map(gradient_edge, tensors)), attrs)
    metadata = node._input_metadata
    for i, out in enumerate(outputs):
        array = out._array
        if array.dtype.kind == "f" or array.dtype.char == "E":     # (bfloat16's kind is "V")
            out._requires_grad = True
            out._grad_fn = node
            out._output_nr = i
        metadata.append((array.shape, array.dtype))
    stored = node._stored
    for saved_name, is_output, index, needed_by in op.save_plan:
        if needed_by is not None and not tensors[needed_by]._requires_grad:
            stored[saved_name] = SavedTensor.NONE       # PyTorch lists it, as None
        elif is_output:
            stored[saved_name] = SavedTensor(outputs[index], is_output=True)
        else:
            stored[saved_name] = SavedTensor(tensors[index])
    return node
