"""What ``Module.zero_grad`` and ``Optimizer.zero_grad`` both do to each parameter."""


def zero_grads(params, set_to_none=True):
    """Reset the ``.grad`` of every tensor in ``params``: to None (PyTorch 2.x's
    default), or to zeros in place (detached from any graph first, as PyTorch does)."""
    for p in params:
        if p.grad is not None:
            if set_to_none:
                p.grad = None
            else:
                p.grad.detach_()
                p.grad._array[...] = 0
