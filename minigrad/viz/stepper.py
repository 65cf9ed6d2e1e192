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

from ._common import (HOOK_KINDS, NODE_COLORS as _NODE_COLORS, escape as _escape,
                      hook_name as _hook_name, is_leaf_node as _is_leaf_node, is_node as _is_node,
                      is_tensor as _is_tensor, kind_color as _kind_color,
                      label_lookup as _label_lookup, legend_html as _legend_html,
                      node_label as _node_label, summarize as _summarize, to_numpy as _to_numpy)
from ..autograd.engine import backward_steps as _backward_steps
from ._language import text as _text
from .drawing import draw_graph as _draw_graph, graph_nodes as _graph_nodes

__all__ = ["EngineStepper", "predict_next", "HOOK_KINDS"]

try:
    import ipywidgets as widgets
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "EngineStepper needs ipywidgets: pip install 'minigrad[lessons]'") from exc


_NOT_RECORDED = "not recorded: these events carry no engine state (a replay)"
_NOT_STARTED = "the engine has not started: press <b>Step</b>"
_UINT64_MAX = 2 ** 64 - 1


def _seq_text(seq):
    """A sequence number as the panels show it: AccumulateGrad's is ``UINT64_MAX``."""
    return "UINT64_MAX" if seq == _UINT64_MAX else str(seq)


def _node_plan(node):
    """The steps the engine takes at ``node``, as ``(kind, hook)`` pairs in its order
    (``call_function``), from the hooks registered now: ``node_start``, tensor hooks,
    ``retain_grad``, pre-hooks, ``apply``, post-accumulate hooks (leaves), post-hooks,
    ``node_done``. (``capture`` steps of ``autograd.grad`` are not predicted.)"""
    steps = [("node_start", None)]
    for hooks, _ in list(node.tensor_pre_hooks()):
        steps += [("tensor_hook", h) for h in list(hooks.values())]
    for ref in list((getattr(node, "_retains_grad_hooks", None) or {}).values()):
        if ref() is not None:
            steps.append(("retain_grad", None))
    steps += [("pre_hook", h) for h in list((node._pre_hooks or {}).values())]
    steps.append(("apply", None))
    if _is_leaf_node(node):
        hooks = getattr(node.variable, "_post_accumulate_grad_hooks", None) or {}
        steps += [("post_accumulate_hook", h) for h in list(hooks.values())]
    steps += [("post_hook", h) for h in list((node._post_hooks or {}).values())]
    steps.append(("node_done", None))
    return steps


def predict_next(events):
    """What the engine will do after the last of ``events`` (from a stepped pass, whose
    events carry ``state``): ``(next_step, next_hook)``, each a ``(kind, node, hook)``
    triple or None. ``next_hook`` is the first hook to fire that can be known now: in
    the rest of the running node, or, once it handed its gradients on, at the node the
    queue pops next (or the next final callback). Returns ``(None, None)`` for the end
    of the pass, and raises ``LookupError`` when the events carry no state or the hooks
    changed since the running node started."""
    if not events:
        raise LookupError("no event yet")
    last = events[-1]
    state = getattr(last, "state", None)
    if state is None:
        raise LookupError("not recorded")
    n_callbacks = sum(1 for e in events if e.kind == "callback")
    if last.kind not in ("callback", "node_done"):
        start = max(i for i, e in enumerate(events) if e.kind == "node_start")
        position = sum(1 for e in events[start:] if e.kind != "capture") - 1
        node = events[start].node
        plan = _node_plan(node)
        if position >= len(plan) or plan[position][0] != last.kind or \
                plan[position][1] is not last.hook:
            raise LookupError("the hooks changed during the pass")
        rest = [(kind, node, hook) for kind, hook in plan[position + 1:]]
        hook = next((step for step in rest if step[0] in HOOK_KINDS), None)
        return rest[0], hook
    if last.kind == "node_done" and state.queue:
        node = state.queue[0][1]
        rest = [(kind, node, hook) for kind, hook in _node_plan(node)]
        return rest[0], next((step for step in rest if step[0] in HOOK_KINDS), None)
    if len(state.callbacks) > n_callbacks:
        step = ("callback", None, state.callbacks[n_callbacks])
        return step, step
    return None, None


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

    Beside the graph, panels show the engine's state at that pause (the
    ``EngineState`` the event carries): the next hook to fire, the ready queue in
    pop order with sequence numbers, every node's remaining dependency count, and
    the input buffers (the gradients gathered so far) of the queued and waiting
    nodes. The graph colours the nodes by the same states, with the legend shown
    above (the colours of ``draw_graph`` and ``hook_timeline`` too). A replayed
    list of recorded events carries no state: the panels say "not recorded".

    For tests and scripts: :meth:`step`, :meth:`run_to_end`, :meth:`reset`,
    :attr:`events`, :attr:`current`, :attr:`done`, :meth:`node_states`. CSS
    classes for browser tests: ``minigrad-stepper`` (the box), ``minigrad-step``,
    ``minigrad-run``, ``minigrad-reset`` (buttons), ``minigrad-status``,
    ``minigrad-graph``, ``minigrad-event-list``, ``minigrad-legend``,
    ``minigrad-next-hook``, ``minigrad-queue`` (items ``li`` with ``.node`` and
    ``.seq``), ``minigrad-deps`` (rows with ``.node`` and ``.count``),
    ``minigrad-buffers`` (rows with ``.node`` and ``.grads``).
    """

    def __init__(self, source, *, roots=None, labels=None, figsize=(5.0, 4.0), dpi=80,
                 **backward_kwargs):
        self.labels = labels
        self.figsize = tuple(figsize)
        self.dpi = dpi
        self._lookup = _label_lookup(labels)
        self._roots = list(roots) if isinstance(roots, (list, tuple)) else \
            ([roots] if roots is not None else None)
        self._saved_grads = []
        self._factory = self._make_factory(source, backward_kwargs)
        self.events = []
        self.done = False
        self.error = None

        self.step_button = widgets.Button(description=_text("Step"), icon="step-forward")
        self.run_button = widgets.Button(description=_text("Run to end"), icon="fast-forward")
        self.reset_button = widgets.Button(description=_text("Reset"), icon="refresh")
        self.status = widgets.HTML()
        self.graph = widgets.Image(format="png")
        self.event_list = widgets.HTML(
            layout=widgets.Layout(max_height="420px", overflow="auto", min_width="320px"))
        self.legend = widgets.HTML(_legend_html())
        self.next_hook = widgets.HTML()
        self.queue = widgets.HTML()
        self.deps = widgets.HTML()
        self.buffers = widgets.HTML()
        for widget, css in ((self.step_button, "minigrad-step"),
                            (self.run_button, "minigrad-run"),
                            (self.reset_button, "minigrad-reset"),
                            (self.status, "minigrad-status"),
                            (self.graph, "minigrad-graph"),
                            (self.event_list, "minigrad-event-list"),
                            (self.legend, "minigrad-legend"),
                            (self.next_hook, "minigrad-next-hook"),
                            (self.queue, "minigrad-queue"),
                            (self.deps, "minigrad-deps"),
                            (self.buffers, "minigrad-buffers")):
            widget.add_class(css)
        self.step_button.on_click(lambda _: self._clicked(self.step))
        self.run_button.on_click(lambda _: self._clicked(self.run_to_end))
        self.reset_button.on_click(lambda _: self._clicked(self.reset))

        panels = widgets.VBox([self.next_hook, self.queue, self.deps, self.buffers],
                              layout=widgets.Layout(min_width="300px", max_width="420px"))
        super().__init__([
            widgets.HBox([self.step_button, self.run_button, self.reset_button]),
            self.status,
            self.legend,
            widgets.HBox([self.graph, panels, self.event_list],
                         layout=widgets.Layout(flex_flow="row wrap")),
        ])
        self.add_class("minigrad-stepper")
        self._iterator = None
        self._start()

    # ------------------------------------------------------------------ sources
    def _make_factory(self, source, backward_kwargs):
        if _is_tensor(source) and not callable(source):
            loss = source
            if self._roots is None:
                self._roots = [loss]
            # Remember the leaves' grads so Reset can undo the accumulation.
            for node in _graph_nodes(loss):
                var = getattr(node, "variable", None)
                if var is not None:
                    grad = var.grad
                    self._saved_grads.append((var, None if grad is None else grad.clone()))
            kwargs = dict(backward_kwargs)
            kwargs.setdefault("retain_graph", True)
            return lambda: _backward_steps(loss, **kwargs)
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
        nodes = [e.node for e in self.events if _is_node(e.node)]
        return nodes[:1]

    def _render_graph(self):
        fig = matplotlib.figure.Figure(figsize=self.figsize, dpi=self.dpi)
        ax = fig.add_subplot()
        roots = self._graph_roots()
        if roots:
            states = self.node_states()
            if states is None:           # a replay: highlight the event's node
                states = {}
                node = self.current.node if self.current is not None else None
            else:                        # after node_done the node is done, not running
                node = [n for n, st in states.items() if st == "running"]
            _draw_graph(*roots, ax=ax, highlight=node, labels=self.labels, fontsize=8,
                       states={n: st for n, st in states.items() if st != "running"})
        else:
            ax.text(0.5, 0.5, "press Step to start the backward pass",
                    ha="center", va="center", color="#666666")
            ax.set_axis_off()
        fig.subplots_adjust(0.01, 0.01, 0.99, 0.99)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        # A bare Figure is not registered with pyplot: dropping it frees it.
        return buf.getvalue()

    def node_states(self):
        """``{node: "running" | "ready" | "waiting" | "done"}`` at this pause (the
        legend's states), or None when the current event carries no state."""
        event = self.current
        if event is None or getattr(event, "state", None) is None:
            return None
        out = {}
        for e in self.events:
            if e.kind == "node_done":
                out[e.node] = "done"
        for node in event.state.buffers:
            out[node] = "waiting"
        for _, node, _ in event.state.queue:
            out[node] = "ready"
        if event.kind not in ("node_done", "callback") and event.node is not None:
            out[event.node] = "running"
        return out

    def _label(self, node):
        return _node_label(node, self._lookup, multiline=False)

    def _swatch(self, state):
        color = _NODE_COLORS.get(state, "#ffffff")
        return f' style="background:{color}"'

    def _state_panels(self):
        """HTML for the next-hook, queue, dependency and buffer panels."""
        event = self.current
        titles = tuple(_text(t) for t in ("Next hook", "Ready queue (pops from the top)",
                                          "Dependencies left", "Input buffers (gradients gathered)"))
        if event is None or getattr(event, "state", None) is None:
            text = _text(_NOT_STARTED if event is None else _NOT_RECORDED)
            return [f"<b>{t}</b>: <i>{text}</i>" for t in titles]
        state = event.state
        states = self.node_states()
        cell = 'style="padding:0 0.6em 0 0"'

        try:
            next_step, next_hook = predict_next(self.events)
        except LookupError as exc:
            cannot = _text("cannot tell ({error})", error=_escape(exc))
            nxt = f"<b>{titles[0]}</b>: <i>{cannot}</i>"
        else:
            if next_hook is None and next_step is None:
                hook_text = _text("none: the pass ends")
            elif next_hook is None:
                at = _escape(self._label(next_step[1])) if next_step[1] is not None else ""
                hook_text = _text("none at {node}, the next node" if event.kind == "node_done"
                                  else "none left at {node} (then the queue decides)", node=at)
            else:
                kind, node, hook = next_hook
                where = "" if node is None else f" at {_escape(self._label(node))}"
                hook_text = (f'<code class="hook">{_escape(_hook_name(hook))}</code> '
                             f'(<span class="kind" style="color:{_kind_color(kind)}">'
                             f"{_escape(kind)}</span>{where})")
            if next_step is None:
                step_text = _text("the pass ends")
            else:
                kind, node, _ = next_step
                where = "" if node is None else f" {_escape(self._label(node))}"
                step_text = f"{_escape(kind)}{where}"
            nxt = (f'<b>{titles[0]}</b>: <span class="next-hook">{hook_text}</span><br>\n'
                   f'<span style="color:#555">{_text("next step")}: <span class="next-step">'
                   f"{step_text}</span></span>")

        if state.queue:
            items = "".join(
                f'<li{self._swatch("ready")}><span class="node">'
                f'{_escape(self._label(node))}</span> <span class="seq">seq '
                f"{_seq_text(seq)}</span></li>\n" for seq, node, _ in state.queue)
            queue = f"<b>{titles[1]}</b>\n<ol style=\"margin:0;padding-left:2em\">{items}</ol>"
        else:
            queue = f"<b>{titles[1]}</b>: <i>{_text('empty')}</i>"

        rows = "".join(
            f'<tr{self._swatch(states.get(node))}><td class="node" {cell}>'
            f'{_escape(self._label(node))}</td>\n<td class="count" {cell}>{count}</td></tr>\n'
            for node, count in state.dependencies.items())
        deps = (f"<b>{titles[2]}</b>\n<table>{rows}</table>" if rows
                else f"<b>{titles[2]}</b>: <i>{_text('none (the root only)')}</i>")

        def grads(buffer):
            return ", ".join("&mdash;" if g is None else _escape(_summarize(_to_numpy(g)))
                             for g in buffer)
        running = [e for e in self.events if e.kind == "node_start"][-1:] \
            if states.get(event.node) == "running" else []
        held = [(e.node, e.args, "running") for e in running] + \
               [(node, buf, "ready") for _, node, buf in state.queue] + \
               [(node, buf, "waiting") for node, buf in state.buffers.items()]
        rows = "".join(
            f'<tr{self._swatch(st)}><td class="node" {cell}>{_escape(self._label(node))}'
            f'</td>\n<td class="grads" {cell}>{grads(buf)}</td></tr>\n' for node, buf, st in held)
        buffers = (f"<b>{titles[3]}</b>\n<table>{rows}</table>" if rows
                   else f"<b>{titles[3]}</b>: <i>{_text('none held')}</i>")
        return [nxt, queue, deps, buffers]

    def _event_html(self, i, event, current):
        style = ' style="background:#ffe2b0;font-weight:bold"' if current else ""
        parts = [f'<span class="kind" style="border-left:0.8em solid {_kind_color(event.kind)};'
                 f'padding-left:0.3em">{_escape(event.kind)}</span>',
                 _escape(_node_label(event.node, self._lookup, multiline=False))]
        name = _hook_name(event.hook)
        if name is not None:
            parts.append(f"hook=<code>{_escape(name)}</code>")
        if event.args is not None and not (isinstance(event.args, tuple) and not event.args):
            parts.append(f'<span style="color:#555">{_escape(_summarize(event.args))}</span>')
        result = getattr(event, "result", None)  # what the hook or formula returned
        if result is not None:
            parts.append(f'<span style="color:#555">&rarr; {_escape(_summarize(result))}</span>')
        return f"<li{style}>{' '.join(parts)}</li>"

    def _refresh(self):
        n = len(self.events)
        if self.error is not None:
            stopped = _text("stopped after {n} events: {error}", n=n,
                            error=f"{_escape(type(self.error).__name__)}: {_escape(self.error)}")
            text = f'<span style="color:#b00020">{stopped}</span>'
        elif self.done:
            text = (f"<b>{_text('done')}</b>: "
                    + _text("the backward pass finished after {n} events", n=n))
        elif n == 0:
            text = _text("ready: press <b>Step</b> to run the engine's first step")
        else:
            ev = self.current
            text = (f"{_text('step {n}', n=n)}: <b>{_escape(ev.kind)}</b> {_text('at')} "
                    f"{_escape(_node_label(ev.node, self._lookup, multiline=False))}")
        self.status.value = text
        items = "".join(self._event_html(i, e, i == n)
                        for i, e in enumerate(self.events, start=1))
        self.event_list.value = (
            '<ol style="font-family:monospace;font-size:12px;margin:0;'
            f'padding-left:3em">{items}</ol>')
        panel_style = '<div style="font-size:12px;margin-bottom:0.5em">{}</div>'
        for widget, markup in zip((self.next_hook, self.queue, self.deps, self.buffers),
                                  self._state_panels()):
            widget.value = panel_style.format(markup)
        self.step_button.disabled = self.done
        self.run_button.disabled = self.done
        self.graph.value = self._render_graph()
