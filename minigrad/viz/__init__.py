"""Pictures of autograd: the backward graph, the engine's event stream, gradient flow.

- :func:`draw_graph` / :func:`graph_nodes`: the graph ``grad_fn`` and
  ``next_functions`` describe (works on torch graphs too).
- :func:`hook_timeline` / :func:`format_events`: one backward pass, event by event,
  from ``minigrad.autograd.engine.record_events()``.
- :class:`EngineStepper`: a widget that runs the real engine one event per click.
- :func:`interact`: ipywidgets' ``interact``, its labels in the lesson's language (the
  lessons run in English and in Chinese with the same code: ``_language.py``).
- :func:`plot_grad_flow` / :class:`GradFlowMonitor`: gradient sizes per layer and
  over training, via ``register_post_accumulate_grad_hook``.

matplotlib and ipywidgets come with the ``lessons`` extra; ``EngineStepper`` is
imported on first use, and ``interact`` imports ipywidgets when called, so the rest works
without ipywidgets. Without ``ax=``,
the plotting functions open a pyplot figure (a notebook shows and closes it);
the stepper renders with a bare ``Figure`` and leaves no figure open.
"""

from .gradflow import GradFlowMonitor, plot_grad_flow
from .drawing import draw_graph, graph_nodes
from .interactive import interact
from .timeline import format_events, hook_timeline

__all__ = ["draw_graph", "graph_nodes", "format_events", "hook_timeline",
           "EngineStepper", "interact", "plot_grad_flow", "GradFlowMonitor"]


def __getattr__(name):
    if name == "EngineStepper":
        from .stepper import EngineStepper
        return EngineStepper
    raise AttributeError(f"module 'minigrad.viz' has no attribute {name!r}")
