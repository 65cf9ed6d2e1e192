"""``minigrad.autograd.functional``: ``jacobian`` and ``hessian`` of a Python function.

PyTorch counterpart: ``torch/autograd/functional.py`` (its reverse-mode strategy). The
Jacobian is built one output element at a time: ``autograd.grad`` of that element with
respect to every input gives one row. The Hessian is the Jacobian of the function that
returns the Jacobian with ``create_graph=True``.
"""
from .. import _tensor, grad_mode     # _tensor is read at call time (import cycle)

__all__ = ["jacobian", "hessian"]


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


def _prepare(inputs, create_graph):
    # Keep the link to the caller's graph only when building a graph (hessian).
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(True))
    return tuple(out)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """``torch.autograd.functional.jacobian``: for one tensor input and output, a tensor
    of shape ``output.shape + input.shape``; tuples of them for tuple inputs/outputs.
    ``strict``, ``vectorize`` and forward mode are not supported."""
    from . import grad as autograd_grad
    from .._creation import stack, zeros_like
    if strict or vectorize or strategy != "reverse-mode":
        raise NotImplementedError("minigrad's jacobian supports the default reverse mode only "
                                  "(strict=False, vectorize=False)")
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        result = []
        for out in outputs:
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(flat.numel()):
                if flat.requires_grad:
                    grads = autograd_grad(flat[k], inputs, retain_graph=True,
                                          create_graph=create_graph, allow_unused=True)
                else:
                    grads = (None,) * len(inputs)
                for j, (g, inp) in enumerate(zip(grads, inputs)):
                    rows[j].append(zeros_like(inp) if g is None else g)
            per_input = []
            for j, inp in enumerate(inputs):
                if rows[j]:
                    jac = stack(rows[j]).reshape(tuple(out.shape) + tuple(inp.shape))
                else:
                    jac = zeros_like(out).reshape(tuple(out.shape) + (1,) * inp.dim()).expand(
                        tuple(out.shape) + tuple(inp.shape))
                per_input.append(jac if create_graph else jac.detach())
            result.append(tuple(per_input))
    return _tuple_postprocess(tuple(result), (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """``torch.autograd.functional.hessian`` of a function returning one element: shape
    ``input.shape + input.shape`` (tuples of tuples for tuple inputs)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def single_output(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_out_tuple or not isinstance(out, _tensor.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        return jacobian(single_output, inp, create_graph=True)

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))
