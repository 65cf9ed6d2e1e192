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
    pytest.importorskip("torch")
    import torch.autograd.functional
    assert _trace(minigrad) == _trace(torch)


def test_products_agree_with_the_jacobian_and_hessian():
    """vjp is v^T J, jvp (double-backward trick) is J v, vhp and hvp are v^T H and H v;
    all four agree with the explicit matrices, and vectorize=True gives the same Jacobian."""
    F = minigrad.autograd.functional
    x = minigrad.tensor([0.5, -1.0, 2.0])
    v = minigrad.tensor([1.0, -2.0, 0.5])

    def f(a):
        return a ** 2 * minigrad.tensor([1.0, 2.0, 3.0]) + a.sin()

    def scalar(a):
        return (a ** 3).sum() + a[0] * a[1]

    J, H = F.jacobian(f, x), F.hessian(scalar, x)
    assert F.jacobian(f, x, vectorize=True).tolist() == J.tolist()
    assert minigrad.allclose(F.vjp(f, x, v)[1], v @ J) and minigrad.allclose(F.jvp(f, x, v)[1], J @ v)
    assert minigrad.allclose(F.vhp(scalar, x, v)[1], v @ H)
    assert minigrad.allclose(F.hvp(scalar, x, v)[1], H @ v)
    assert not F.jvp(f, x, v)[1].requires_grad
    assert F.jvp(f, x.clone().requires_grad_(), v, create_graph=True)[1].requires_grad
    with pytest.raises(RuntimeError, match="independent of input 1. This is not allowed in strict mode"):
        F.vjp(lambda a, b: a * 2, (x, x), v, strict=True)
