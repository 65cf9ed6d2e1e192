"""``minigrad.autograd.functional``: derivatives of a Python function, ``jacobian``,
``hessian``, ``vjp``, ``jvp``, ``vhp`` and ``hvp``.

PyTorch counterpart: ``torch/autograd/functional.py``, whose reverse-mode code this
follows step for step (same checks, same ``strict`` errors, same results):

- ``vjp`` (v^T J) is one ``autograd.grad`` with ``v`` as the output gradient;
- ``jvp`` (J v) uses the *double-backward trick*: ``g(u) = u^T J`` is linear in a dummy
  output gradient ``u``, so the gradient of ``g(u)`` with respect to ``u``, seeded with
  ``v``, is ``J v``: two reverse passes instead of forward-mode AD;
- ``vhp`` is the ``vjp`` of the gradient; ``hvp`` is the double-backward trick applied to it
  (for a symmetric Hessian both give the same numbers);
- ``jacobian`` takes one ``autograd.grad`` per output element, or with ``vectorize=True`` one
  call with ``is_grads_batched=True`` over the rows of an identity matrix (PyTorch runs it
  as one vmapped pass; minigrad runs one pass per row, see docs/differences.md);
- ``hessian`` is the Jacobian of the function returning the Jacobian with ``create_graph=True``.

``strategy="forward-mode"`` needs forward-mode AD, which minigrad does not have.
"""
from .. import _tensor, grad_mode     # _tensor is read at call time (import cycle)

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, arg_name, fn_name):
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, _tensor.Tensor):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                                f"tuple of Tensors but the value at index {i} has type {type(item)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                            f"of Tensors but the given {arg_name} has type {type(item)}.")
    return is_tuple, items


def _tuple_postprocess(res, to_unpack):
    """Unpack the nested tuples for a non-tuple output and/or input, as PyTorch does."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    # Keep the link to the caller's graph only when building a graph (create_graph).
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _grad_postprocess(inputs, create_graph):
    """Detach the results unless the caller asked for a graph (tuples nest)."""
    if isinstance(inputs[0], _tensor.Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} "
                               f"but got {el_v.size()}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent "
                "of the input. This is not allowed in strict mode. You should ensure that your "
                "function is thrice differentiable and that the hessian depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function "
                 "with respect to input {i} is independent of the input. This is not allowed in strict "
                 "mode. You should ensure that your function is twice differentiable and that the "
                 "jacobian depends on the inputs (this would be violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs "
                "must be computed in a differentiable manner from the input when running in strict mode."),
}


def _check_requires_grad(inputs, input_type, strict):
    """In strict mode, refuse a value that is not connected to the inputs."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
                   is_grads_batched=False):
    """``autograd.grad`` over the outputs that require grad only (None for every input
    when none does)."""
    from . import grad as autograd_grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return autograd_grad(tuple(out for out, _ in pairs), inputs, tuple(g for _, g in pairs),
                         allow_unused=True, create_graph=create_graph, retain_graph=retain_graph,
                         is_grads_batched=is_grads_batched)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in "
                         "the grad_jacobian. This is not allowed in strict mode as it prevents from "
                         "using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """None gradients become zeros shaped like ``refs`` (or, in strict mode, an error
    naming the ``stage``: first or double backward, with or without the trick)."""
    from .._creation import zeros_like
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _prepare_v(v, against, is_against_tuple, create_graph, fn_name, none_message):
    if v is None:
        if len(against) != 1 or against[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, against, is_against_tuple)
    return v


def _last_pass(outputs, is_outputs_tuple, grad_args, refs, is_result_tuple, strict, create_graph, stage):
    """What vjp, jvp, vhp and hvp end with: the product's backward pass
    (``grad_args`` = outputs, inputs, grad_outputs), under grad mode only when building a
    graph; zeros (shaped like ``refs``) for what it does not reach; the output and the
    product detached unless ``create_graph``, each unpacked if it was no tuple."""
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grads = _autograd_grad(*grad_args, create_graph=create_graph)
        result = _fill_in_zeros(grads, refs, strict, create_graph, stage)
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_result_tuple))


_NONE_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                   "single Tensor with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.vjp``: ``(func(inputs), v^T J)``, the vector-Jacobian
    product, shaped like the inputs. ``v`` may be None when the output has one element."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single "
                       "Tensor with a single element.")
    return _last_pass(outputs, is_outputs_tuple, (outputs, inputs, v), inputs, is_inputs_tuple,
                      strict, create_graph, "back")


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.jvp``: ``(func(inputs), J v)``, the Jacobian-vector
    product, shaped like the outputs, by the double-backward trick (module docstring)."""
    from .._creation import zeros_like
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _NONE_FOR_INPUT)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # The backward is linear in grad_outputs, so their value does not matter (zeros:
        # no inf or nan); they only need to be part of the double-backward graph.
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    return _last_pass(outputs, is_outputs_tuple, (grad_inputs, grad_outputs, v), outputs, is_outputs_tuple,
                      strict, create_graph, "back_trick")


def _single_output_jacobian(func, inputs, v, create_graph, strict, fn_name):
    """What vhp and hvp share: the prepared inputs and v, the output, its gradient with
    ``create_graph=True``; ``func`` must return a single one-element Tensor."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, fn_name, _NONE_FOR_INPUT)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a "
                           "single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.vhp``: ``(func(inputs), v^T H)`` for a function returning
    one element: the vjp of its gradient."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, outputs, jac = _single_output_jacobian(
            func, inputs, v, create_graph, strict, "vhp")
    return _last_pass(outputs, False, (jac, inputs, v), inputs, is_inputs_tuple, strict, create_graph,
                      "double_back")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.hvp``: ``(func(inputs), H v)`` for a function returning
    one element, by the double-backward trick on its gradient."""
    from .._creation import zeros_like
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, outputs, jac = _single_output_jacobian(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    return _last_pass(outputs, False, (double_back, grad_jac, v), inputs, is_inputs_tuple, strict,
                      create_graph, "double_back_trick")


def _standard_basis(tensors, numels):
    """For each tensor, its columns of the identity matrix of size ``sum(numels)``."""
    from .._creation import eye
    identity = eye(sum(numels), dtype=tensors[0].dtype)
    chunks, start = [], 0
    for n in numels:
        chunks.append(identity[:, start:start + n].clone())
        start += n
    return tuple(chunks)


def _vectorized_jacobian(outputs, inputs, create_graph):
    from .._creation import zeros_like
    numels = tuple(out.numel() for out in outputs)
    grad_outputs = _standard_basis(outputs, numels)
    flat_outputs = tuple(out.reshape(-1) for out in outputs)
    rows = list(_autograd_grad(flat_outputs, inputs, grad_outputs, create_graph=create_graph,
                               is_grads_batched=True))
    per_input = []
    for row, inp in zip(rows, inputs):
        if row is None:
            row = zeros_like(inp).expand((sum(numels),) + tuple(inp.shape))
        starts = [sum(numels[:k]) for k in range(len(numels))]
        per_input.append([row[start:start + n].view(tuple(out.shape) + tuple(inp.shape))
                          for start, n, out in zip(starts, numels, outputs)])
    return tuple(zip(*per_input))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """``torch.autograd.functional.jacobian``: for one tensor input and output, a tensor
    of shape ``output.shape + input.shape``; tuples of them for tuple inputs/outputs.
    ``vectorize=True`` computes all rows in one batched ``autograd.grad`` call."""
    from .._creation import stack, zeros_like
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                             'your function has more outputs than inputs, "forward-mode" tends to be more '
                             'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please '
                                      'either set `create_graph=False` or `strategy="reverse-mode"`.')
        raise NotImplementedError('minigrad has no forward-mode AD: use strategy="reverse-mode" (the '
                                  'default), which gives the same Jacobian')
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                                   "`vectorized=True` are not supported together. Please either set "
                                   "`strict=False` or `vectorize=False`.")
            result = _vectorized_jacobian(outputs, inputs, create_graph)
            return _tuple_postprocess(_grad_postprocess(result, create_graph),
                                      (is_outputs_tuple, is_inputs_tuple))
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            for k in range(out.nelement()):
                grads = _autograd_grad((out.reshape(-1)[k],), inputs, retain_graph=True,
                                       create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent "
                                               f"of input {j}. This is not allowed in strict mode.")
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of "
                                           f"input {i}. This is not allowed in strict mode when "
                                           "create_graph=True.")
                    rows[j].append(g)
            result.append(tuple(stack(rows[j]).view(tuple(out.shape) + tuple(inp.shape)) if rows[j]
                                else zeros_like(out).reshape(tuple(out.shape) + (1,) * inp.dim()).expand(
                                    tuple(out.shape) + tuple(inp.shape))
                                for j, inp in enumerate(inputs)))
        return _tuple_postprocess(_grad_postprocess(tuple(result), create_graph),
                                  (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """``torch.autograd.functional.hessian`` of a function returning one element: shape
    ``input.shape + input.shape`` (tuples of tuples for tuple inputs)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a "
                               "single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))
