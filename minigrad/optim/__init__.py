"""``minigrad.optim``: ``SGD``, ``Adam``, ``AdamW`` with PyTorch's update formulas, and
:func:`step_in_backward`, the "optimizer step inside backward" recipe."""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "step_in_backward"]


def step_in_backward(params, make_optimizer):
    """Update each parameter the moment its gradient is ready, during ``backward()``.

    This is the recipe of PyTorch's tutorial "How to save memory by fusing the
    optimizer step into the backward pass" (``Tensor.register_post_accumulate_grad_hook``,
    PyTorch 2.1+): give every parameter its own optimizer and a post-accumulate-grad
    hook that steps it and drops its gradient. Gradients then never all exist at once,
    which is the point of the trick for big models::

        handles = optim.step_in_backward(model.parameters(),
                                         lambda p: optim.Adam([p], lr=1e-3))
        for x, y in batches:
            loss_fn(model(x), y).backward()      # parameters are updated in here
        for h in handles: h.remove()

    No ``optimizer.step()`` or ``zero_grad()`` is needed in the loop. Because the
    step happens in the hook, a parameter used twice in one graph (whose gradient
    arrives in one piece, after all its uses) is still stepped once per backward.
    Returns the hook handles; the per-parameter optimizers are in ``handles[i].optimizer``.
    """
    handles = []
    for p in params:
        opt = make_optimizer(p)

        def hook(param, opt=opt):
            opt.step()
            opt.zero_grad(set_to_none=True)

        handle = p.register_post_accumulate_grad_hook(hook)
        handle.optimizer = opt
        handles.append(handle)
    return handles
