"""How big are the gradients, layer by layer and step by step?

Vanishing or exploding gradients show up as per-layer gradient sizes that
shrink or grow by orders of magnitude from the last layer to the first.
:func:`plot_grad_flow` draws one snapshot (after ``loss.backward()``) from
``model.named_parameters()``; :class:`GradFlowMonitor` records one norm per
parameter per backward pass with post-accumulate-grad hooks
(``Tensor.register_post_accumulate_grad_hook``, PyTorch 2.1+), which fire
right after ``AccumulateGrad`` has written ``param.grad``, and plots them
over training. Both only use the torch API, so they work on torch models too.
"""

import numpy as np
from matplotlib.ticker import MaxNLocator as _MaxNLocator

from ._common import new_axes as _new_axes, to_numpy as _to_numpy

__all__ = ["plot_grad_flow", "GradFlowMonitor"]


def plot_grad_flow(named_parameters, ax=None, log=False):
    """Bar chart of mean and max ``|grad|`` for each parameter that requires grad.

    Pass ``model.named_parameters()`` after ``backward()``. Light bars are the
    max, dark bars the mean; parameters whose ``.grad`` is still None (not
    reached by this backward pass) are marked ``(no grad)`` on the axis.
    ``log=True`` uses a log scale, which makes vanishing gradients visible.
    Returns the Axes.
    """
    names, means, maxes = [], [], []
    for name, param in named_parameters:
        if not getattr(param, "requires_grad", True):
            continue
        if param.grad is None:
            names.append(f"{name} (no grad)")
            means.append(np.nan)
            maxes.append(np.nan)
            continue
        g = np.abs(_to_numpy(param.grad).astype(float))
        names.append(name)
        means.append(float(g.mean()) if g.size else 0.0)
        maxes.append(float(g.max()) if g.size else 0.0)
    if not names:
        raise ValueError("no parameter requires grad: nothing to plot")
    if all(np.isnan(m) for m in means):
        raise ValueError("no parameter has a .grad yet: call loss.backward() first")

    if ax is None:
        ax = _new_axes((max(4.0, 0.6 * len(names) + 2.0), 3.2))
    x = np.arange(len(names))
    ax.bar(x, maxes, width=0.7, color="#9ecae1", label="max |grad|")
    ax.bar(x, means, width=0.35, color="#08519c", label="mean |grad|")
    ax.set_xticks(x, names, rotation=45, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(names) - 0.4)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel("|grad|")
    ax.set_title("gradient flow (first layer on the left)")
    ax.legend(fontsize=8, frameon=False)
    ax.figure.tight_layout()
    return ax


class GradFlowMonitor:
    """Record ``‖param.grad‖`` after every backward pass, for each parameter.

    ::

        monitor = GradFlowMonitor(model.named_parameters())
        for batch in data:
            loss = ...; loss.backward(); opt.step(); opt.zero_grad()
        monitor.plot(); monitor.remove()

    Each parameter gets a post-accumulate-grad hook (PyTorch's
    ``register_post_accumulate_grad_hook``: it runs after ``AccumulateGrad``
    stored the gradient and receives the parameter). The hook appends the
    norm of ``param.grad`` to ``history[name]``: one entry per backward pass
    that reaches the parameter. With gradient accumulation (no ``zero_grad``
    between passes) it is the norm of the running sum, as ``.grad`` holds it.
    ``remove()`` (or leaving a ``with`` block) removes the hooks; their
    handles are in ``handles``.
    """

    def __init__(self, named_parameters, ord=2):
        self.ord = ord
        self.history = {}
        self.handles = []
        for name, param in named_parameters:
            if not getattr(param, "requires_grad", True):
                continue
            self.history[name] = []
            self.handles.append(
                param.register_post_accumulate_grad_hook(self._hook_for(name)))

    def _hook_for(self, name):
        def record_grad_norm(param):
            g = _to_numpy(param.grad).astype(float).ravel()
            self.history[name].append(float(np.linalg.norm(g, ord=self.ord)))
        return record_grad_norm

    @property
    def steps(self):
        """How many backward passes have been recorded (the longest history)."""
        return max((len(v) for v in self.history.values()), default=0)

    def plot(self, ax=None, log=True):
        """One line per parameter: gradient norm against the backward-pass number."""
        if ax is None:
            ax = _new_axes((6.0, 3.2))
        for name, norms in self.history.items():
            if norms:
                ax.plot(np.arange(1, len(norms) + 1), norms, marker="o", ms=3,
                        lw=1.2, label=name)
        if log and any(v > 0 for norms in self.history.values() for v in norms):
            ax.set_yscale("log")
        ax.xaxis.set_major_locator(_MaxNLocator(integer=True))
        ax.set_xlabel("backward pass")
        ax.set_ylabel(f"‖grad‖ (ord={self.ord})")
        ax.set_title("gradient norms during training")
        if any(self.history.values()):
            ax.legend(fontsize=7, frameon=False, loc="upper left",
                      bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ax.figure.tight_layout()
        return ax

    def remove(self):
        """Remove every hook (idempotent, like ``RemovableHandle.remove``)."""
        for handle in self.handles:
            handle.remove()
        self.handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False
