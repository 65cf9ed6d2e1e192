"""Step through a backward pass one engine event at a time, in a notebook.

PyTorch's engine runs a whole backward pass inside one C++ call; minigrad's
engine is a generator (``minigrad.autograd.engine.backward_steps``) that yields
an ``EngineEvent`` after every step of the *real* pass: nothing is replayed or
re-enacted. :class:`EngineStepper` holds that generator and calls ``next()``
once per click, so a learner sees the engine pause between, say, a node's
pre-hook and its backward formula, with the graph drawn beside it and the
running node highlighted.
"""

import io

import matplotlib.figure

from ._common import escape, hook_name, is_node, is_tensor, label_lookup, node_label, \
    summarize
from .graph import draw_graph, graph_nodes

try:
    import ipywidgets as widgets
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "EngineStepper needs ipywidgets: pip install 'minigrad[lessons]'") from exc


def _backward_steps():
    from minigrad.autograd import engine
    steps = getattr(engine, "backward_steps", None)
    if steps is None:
        raise ImportError("minigrad.autograd.engine has no backward_steps yet")
    return steps


class EngineStepper(widgets.VBox):
    """A widget that advances the real backward engine one event per click.

    ``source`` is one of:

    - a loss tensor: each (re)start calls
      ``minigrad.autograd.engine.backward_steps(loss, retain_graph=True, **backward_kwargs)``
      (the graph is kept so Reset can run the pass again; Reset also puts
      the leaves' ``.grad`` back to what it was when the stepper was made);
    - a factory: a callable returning a fresh ``backward_steps(...)`` generator,
      or a tuple ``(roots, generator)``; it is called again on Reset, so it can
      rebuild the graph from scratch (the cleanest way to start over);
    - an iterator (e.g. one ``backward_steps(...)`` generator): one pass only,
      Reset raises;
    - a list of recorded events (``record_events()``): replayed, Reset restarts.

    ``roots`` says which graph to draw (defaults to the loss, or the first
    event's node). Buttons: Step, Run to end, Reset. The graph image shows the
    node of the current event in orange; the list shows every event so far
    with its hook's name and a summary of its arguments, the newest one
    highlighted.

    For tests and scripts: :meth:`step`, :meth:`run_to_end`, :meth:`reset`,
    :attr:`events`, :attr:`current`, :attr:`done`. CSS classes for browser
    tests: ``minigrad-stepper`` (the box), ``minigrad-step``, ``minigrad-run``,
    ``minigrad-reset`` (buttons), ``minigrad-status``, ``minigrad-graph``,
    ``minigrad-event-list``.
    """

    def __init__(self, source, *, roots=None, labels=None, figsize=(5.0, 4.0), dpi=80,
                 **backward_kwargs):
        self.labels = labels
        self.figsize = tuple(figsize)
        self.dpi = dpi
        self._lookup = label_lookup(labels)
        self._roots = list(roots) if isinstance(roots, (list, tuple)) else \
            ([roots] if roots is not None else None)
        self._saved_grads = []
        self._factory = self._make_factory(source, backward_kwargs)
        self.events = []
        self.done = False
        self.error = None

        self.step_button = widgets.Button(description="Step", icon="step-forward")
        self.run_button = widgets.Button(description="Run to end", icon="fast-forward")
        self.reset_button = widgets.Button(description="Reset", icon="refresh")
        self.status = widgets.HTML()
        self.graph = widgets.Image(format="png")
        self.event_list = widgets.HTML(
            layout=widgets.Layout(max_height="420px", overflow="auto", min_width="320px"))
        for widget, css in ((self.step_button, "minigrad-step"),
                            (self.run_button, "minigrad-run"),
                            (self.reset_button, "minigrad-reset"),
                            (self.status, "minigrad-status"),
                            (self.graph, "minigrad-graph"),
                            (self.event_list, "minigrad-event-list")):
            widget.add_class(css)
        self.step_button.on_click(lambda _: self._clicked(self.step))
        self.run_button.on_click(lambda _: self._clicked(self.run_to_end))
        self.reset_button.on_click(lambda _: self._clicked(self.reset))

        super().__init__([
            widgets.HBox([self.step_button, self.run_button, self.reset_button]),
            self.status,
            widgets.HBox([self.graph, self.event_list]),
        ])
        self.add_class("minigrad-stepper")
        self._iterator = None
        self._start()

    # ------------------------------------------------------------------ sources
    def _make_factory(self, source, backward_kwargs):
        if is_tensor(source) and not callable(source):
            loss = source
            if self._roots is None:
                self._roots = [loss]
            # Remember the leaves' grads so Reset can undo the accumulation.
            for node in graph_nodes(loss):
                var = getattr(node, "variable", None)
                if var is not None:
                    grad = var.grad
                    self._saved_grads.append((var, None if grad is None else grad.clone()))
            kwargs = dict(backward_kwargs)
            kwargs.setdefault("retain_graph", True)
            return lambda: _backward_steps()(loss, **kwargs)
        if backward_kwargs:
            raise TypeError("backward keyword arguments only apply when a loss tensor "
                            f"is given, got {sorted(backward_kwargs)}")
        if hasattr(source, "__next__"):
            self._single_use = [source]
            return None
        if isinstance(source, (list, tuple)):
            recorded = list(source)
            return lambda: iter(recorded)
        if callable(source):
            return source
        raise TypeError("EngineStepper needs a loss tensor, a factory returning "
                        "backward_steps(...), or an iterator of engine events; got "
                        f"{type(source).__name__}")

    def _start(self):
        if self._factory is None:
            if not self._single_use:
                raise RuntimeError(
                    "this stepper was given a single generator, which cannot be "
                    "restarted: pass a factory (lambda: backward_steps(...)) or the "
                    "loss tensor to be able to Reset")
            self._iterator = self._single_use.pop()
        else:
            result = self._factory()
            if isinstance(result, tuple) and len(result) == 2 and \
                    hasattr(result[1], "__next__"):
                roots, result = result
                self._roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
            self._iterator = iter(result)
        self.events = []
        self.done = False
        self.error = None
        self._refresh()

    # ------------------------------------------------------------------ stepping
    @property
    def current(self):
        """The last event the engine yielded (None before the first step)."""
        return self.events[-1] if self.events else None

    def _advance(self):
        if self.done:
            return None
        try:
            event = next(self._iterator)
        except StopIteration:
            self.done = True
            return None
        except Exception as exc:
            # A hook raised inside the engine: the pass is over, as in PyTorch.
            self.done = True
            self.error = exc
            raise
        self.events.append(event)
        return event

    def step(self):
        """Advance the engine by exactly one event and return it (None when done)."""
        try:
            return self._advance()
        finally:
            self._refresh()

    def run_to_end(self):
        """Drain the engine: finishes the backward pass. Returns all events."""
        try:
            while not self.done:
                self._advance()
        finally:
            self._refresh()
        return self.events

    def reset(self):
        """Start the pass over: a fresh generator (from the factory or the loss)."""
        for var, grad in self._saved_grads:
            var.grad = None if grad is None else grad.clone()
        self._start()

    def _clicked(self, action):
        try:
            action()
        except Exception:
            pass  # shown in the status line by _refresh; no traceback in the page

    # ------------------------------------------------------------------ drawing
    def _graph_roots(self):
        if self._roots:
            return self._roots
        nodes = [e.node for e in self.events if is_node(e.node)]
        return nodes[:1]

    def _render_graph(self):
        fig = matplotlib.figure.Figure(figsize=self.figsize, dpi=self.dpi)
        ax = fig.add_subplot()
        roots = self._graph_roots()
        if roots:
            node = self.current.node if self.current is not None else None
            draw_graph(*roots, ax=ax, highlight=node, labels=self.labels, fontsize=8)
        else:
            ax.text(0.5, 0.5, "press Step to start the backward pass",
                    ha="center", va="center", color="#666666")
            ax.set_axis_off()
        fig.subplots_adjust(0.01, 0.01, 0.99, 0.99)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        # A bare Figure is not registered with pyplot: dropping it frees it.
        return buf.getvalue()

    def _event_html(self, i, event, current):
        style = ' style="background:#ffe2b0;font-weight:bold"' if current else ""
        parts = [f'<span class="kind">{escape(event.kind)}</span>',
                 escape(node_label(event.node, self._lookup, multiline=False))]
        name = hook_name(event.hook)
        if name is not None:
            parts.append(f"hook=<code>{escape(name)}</code>")
        if event.args is not None and not (isinstance(event.args, tuple) and not event.args):
            parts.append(f'<span style="color:#555">{escape(summarize(event.args))}</span>')
        result = getattr(event, "result", None)  # what the hook or formula returned
        if result is not None:
            parts.append(f'<span style="color:#555">&rarr; {escape(summarize(result))}</span>')
        return f"<li{style}>{' '.join(parts)}</li>"

    def _refresh(self):
        n = len(self.events)
        if self.error is not None:
            text = (f'<span style="color:#b00020">stopped after {n} events: '
                    f"{escape(type(self.error).__name__)}: {escape(self.error)}</span>")
        elif self.done:
            text = f"<b>done</b>: the backward pass finished after {n} events"
        elif n == 0:
            text = "ready: press <b>Step</b> to run the engine's first step"
        else:
            ev = self.current
            text = (f"step {n}: <b>{escape(ev.kind)}</b> at "
                    f"{escape(node_label(ev.node, self._lookup, multiline=False))}")
        self.status.value = text
        items = "".join(self._event_html(i, e, i == n)
                        for i, e in enumerate(self.events, start=1))
        self.event_list.value = (
            '<ol style="font-family:monospace;font-size:12px;margin:0;'
            f'padding-left:3em">{items}</ol>')
        self.step_button.disabled = self.done
        self.run_button.disabled = self.done
        self.graph.value = self._render_graph()
