"""Pictures of autograd: the backward graph, the engine's event stream, gradient flow.

- :func:`draw_graph` / :func:`graph_nodes`: the graph ``grad_fn`` and
  ``next_functions`` describe (works on torch graphs too).
- :func:`hook_timeline` / :func:`format_events`: one backward pass, event by event,
  from ``minigrad.autograd.engine.record_events()``.
- :class:`EngineStepper`: a widget that runs the real engine one event per click.
- :func:`plot_grad_flow` / :class:`GradFlowMonitor`: gradient sizes per layer and
  over training, via ``register_post_accumulate_grad_hook``.

matplotlib is imported lazily by these modules' users only; ipywidgets only by
the stepper (both come with the ``lessons`` extra).
"""

from .graph import draw_graph, graph_nodes
from .timeline import format_events, hook_timeline

__all__ = ["draw_graph", "graph_nodes", "format_events", "hook_timeline"]
