"""``gradcheck``: compare analytical gradients with finite differences.

PyTorch counterpart: ``torch/autograd/gradcheck.py`` (the "slow" mode: one column of
the Jacobian per perturbed input element). Use float64 inputs: float32 finite
differences are too noisy for the default tolerances.
"""
import numpy as np

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised (when ``raise_exception``) with the first mismatching Jacobian entry."""


def _outputs(fn, inputs):
    from .._tensor import Tensor
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def _numerical_jacobian(fn, inputs, index, eps):
    from ..grad_mode import no_grad
    x = inputs[index]
    with no_grad():
        base = [o._array.astype(np.float64).ravel().copy() for o in _outputs(fn, inputs)]
        columns = []
        flat = x._array.reshape(-1)
        for k in range(flat.size):
            old = flat[k]
            flat[k] = old + eps
            plus = [o._array.astype(np.float64).ravel().copy() for o in _outputs(fn, inputs)]
            flat[k] = old - eps
            minus = [o._array.astype(np.float64).ravel().copy() for o in _outputs(fn, inputs)]
            flat[k] = old
            columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return [np.stack([c[j] for c in columns], axis=1) if columns else np.zeros((b.size, 0))
            for j, b in enumerate(base)]


def _analytical_jacobian(fn, inputs, index):
    from .._creation import zeros_like
    from . import grad
    outputs = _outputs(fn, inputs)
    jacobians = []
    for out in outputs:
        rows = []
        for k in range(out.numel()):
            seed = zeros_like(out)
            seed._array.reshape(-1)[k] = 1.0
            if not out.requires_grad:
                rows.append(np.zeros(inputs[index].numel()))
                continue
            (g,) = grad(out, inputs[index], seed, retain_graph=True, allow_unused=True)
            rows.append(np.zeros(inputs[index].numel()) if g is None else g._array.astype(np.float64).ravel())
        jacobians.append(np.stack(rows) if rows else np.zeros((0, inputs[index].numel())))
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **unused):
    """``torch.autograd.gradcheck(func, inputs)``: True when every analytical Jacobian
    entry matches the central finite difference within ``atol + rtol * |numerical|``."""
    from .._tensor import Tensor
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    for index, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        if x._array.dtype != np.float64:
            import warnings
            warnings.warn(f"Input #{index} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning)
        numerical = _numerical_jacobian(func, inputs, index, eps)
        analytical = _analytical_jacobian(func, inputs, index)
        for out_index, (n, a) in enumerate(zip(numerical, analytical)):
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                bad = np.argwhere(~np.isclose(a, n, atol=atol, rtol=rtol))[0]
                raise GradcheckError(
                    f"Jacobian mismatch for output {out_index} with respect to input {index},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                    f"first differing entry (output element, input element) = {tuple(bad)}: "
                    f"numerical {n[tuple(bad)]:.6g} vs analytical {a[tuple(bad)]:.6g}")
    return True


def gradgradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **unused):
    """``torch.autograd.gradgradcheck``: gradcheck the first-order gradient of ``func``
    (with all-ones output gradients), which exercises ``create_graph=True``."""
    from .._creation import ones_like
    from .._tensor import Tensor
    from ..grad_mode import enable_grad
    from . import grad
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    diff_inputs = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]

    def first_order(*xs):
        # gradcheck evaluates this under no_grad for its finite differences; the
        # first-order gradient still needs a graph to differentiate.
        with enable_grad():
            outs = _outputs(func, xs)
            used = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
            grads = grad(outs, used, [ones_like(o) for o in outs], create_graph=True,
                         allow_unused=True)
        return tuple(g if g is not None else ones_like(x) * 0.0 for g, x in zip(grads, used))

    assert diff_inputs, "gradgradcheck needs at least one input that requires grad"
    return gradcheck(first_order, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
