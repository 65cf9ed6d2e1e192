"""What a custom Function's ``apply`` makes of the outputs ``forward`` returned.

PyTorch counterpart: ``_wrap_outputs`` in ``torch/csrc/autograd/custom_function.cpp``
(with ``_mark_dirty`` and ``_parse_non_differentiable`` of ``python_function.cpp``).
``function.py`` describes the rules from the user's side; here each output gets its
place in the graph:

- a non-tensor output keeps a gradient slot (its gradient is None);
- a non-differentiable output (nothing recorded, ``mark_non_differentiable``, or not
  floating point) gets no edge; one that is an input comes back as a detached alias
  (requiring grad) or a plain alias;
- a dirty input (``mark_dirty``) has its version bumped and, when recorded, the node as
  its new history, as after an in-place op (``Tensor._rebase_history``);
- an input returned as-is comes back as a new alias of it, with the node as grad_fn;
- any other output gets the node as grad_fn.
"""
from .. import _tensor_class


def wrap_outputs(cls, ctx, args, outputs, recording):
    """What PyTorch's ``_wrap_outputs`` makes of what ``forward`` returned: each tensor
    output is given its place in the graph (or none), every output gets a gradient slot."""
    Tensor = _tensor_class.Tensor
    # (PyTorch's two messages below end in mid-sentence, as it prints them.)
    if not all(isinstance(t, Tensor) for t in ctx._non_differentiable):
        raise RuntimeError("mark_non_differentiable only accepts variable arguments, but got ")
    if not all(isinstance(t, Tensor) for t in ctx._dirty):
        raise RuntimeError("mark_dirty can only accept variables, but argument ")
    for t in ctx._dirty:
        t._version_counter[0] += 1
    ctx._non_differentiable_outputs = set()
    wrapped = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            # As in PyTorch every output has a slot (its gradient is None): a
            # tensor's output_nr is its position among all outputs.
            ctx._input_metadata.append(None)
            wrapped.append(out)
            continue
        is_input = any(out is a for a in args)
        dirty = any(out is d for d in ctx._dirty)
        ctx._input_metadata.append((out._array.shape, out._array.dtype))
        if not (recording and out.is_floating_point() and not any(out is n for n in ctx._non_differentiable)):
            ctx._non_differentiable_outputs.add(i)
            if out.requires_grad and is_input:
                out = out.detach()              # a detached alias; the input keeps requires_grad
            elif out.requires_grad:
                out.detach_()
            elif is_input and not dirty:
                out = _alias(out)
        elif dirty:
            if out.is_leaf and out.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                                   "operation.")
            if out._base is not None and len(outputs) > 1:
                raise RuntimeError(_DIRTY_VIEW_MESSAGE)
            out._rebase_history(ctx)
            out._output_nr = i
        else:
            if is_input:                        # returned an input: give it its own node
                out = _alias(out)
                # As in PyTorch it is a view of the input, created in a custom
                # Function: writing to it in place is refused (_check_inplace).
                out._custom_function_view = (cls.__name__, i)
            out.requires_grad = True
            out.grad_fn, out._output_nr = ctx, i
        wrapped.append(out)
    if not all(any(d is o for o in outputs) for d in ctx._dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned "
                           "as output. The inputs that are modified inplace must all be outputs of the "
                           "Function.")
    return tuple(wrapped)


def _alias(tensor):
    """A new tensor viewing ``tensor``'s data (PyTorch's ``view_as(self)``)."""
    out = _tensor_class.Tensor._wrap(tensor._array, tensor._version_counter)
    out._base = tensor
    return out


_DIRTY_VIEW_MESSAGE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. You "
    "should either make sure the input is not a view (using .clone() for example) or make your "
    "Function only return one Tensor (potentially splitting it into two Functions: one doing the "
    "inplace that returns a single Tensor and a second one that does the other operations). You can "
    "ask on the forum https://discuss.pytorch.org/ if your use case cannot be split in this way.")
