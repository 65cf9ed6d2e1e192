"""``autograd.functional.jacobian`` and ``hessian``: shapes, tuple handling, the
Hessian's graph with ``create_graph=True``, and the same results as PyTorch's."""
import pytest

import minigrad


def _trace(T):
    from_functional = T.autograd.functional
    jacobian, hessian = from_functional.jacobian, from_functional.hessian
    x, y = T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])
    w = T.tensor([1.0, -1.0], requires_grad=True)
    h = hessian(lambda a: (a * w).pow(2).sum(), x, create_graph=True)
    try:
        hessian(lambda a: a * 2, x)
        error = None
    except RuntimeError as e:
        error = str(e)
    return [
        jacobian(lambda a: a ** 2 + 3 * a, x).tolist(),
        hessian(lambda a: (a ** 3).sum(), x).tolist(),
        [j.tolist() for j in jacobian(lambda a, b: a * b, (x, y))],
        [j.tolist() for j in jacobian(lambda a: (a.sum(), a * 2), x)],
        [[j.tolist() for j in row] for row in jacobian(lambda a, b: (a * b, a + 1), (x, y))],
        tuple(jacobian(lambda a: a @ T.tensor([[1.0, 2.0], [3.0, 4.0]]), T.ones(2, 2)).shape),
        [[j.tolist() for j in row] for row in hessian(lambda a, b: (a * b * b).sum(), (x, y))],
        h.tolist(), h.requires_grad, jacobian(lambda a: T.ones(2), x).tolist(), error,
    ]


def test_jacobian_and_hessian_values():
    trace = _trace(minigrad)
    assert trace[0] == [[5.0, 0.0], [0.0, 7.0]]
    assert trace[1] == [[6.0, 0.0], [0.0, 12.0]]
    assert trace[5] == (2, 2, 2, 2)
    assert trace[8] is True
    assert trace[10] == "The Tensor returned by the function given to hessian should contain a single element"


def test_same_as_torch():
    torch = pytest.importorskip("torch")
    import torch.autograd.functional  # noqa: F401
    assert _trace(minigrad) == _trace(torch)
