"""Lesson 10's checks (write the engine yourself): the instructor solutions from the
notebook pass, a stub is "not implemented yet", an engine that hands the work back to
minigrad's is caught, and wrong engines (hook order, queue, buffers, callbacks) get a
specific ❌. Also the seam itself (``engine.use``)."""
import heapq
import itertools
from pathlib import Path

import pytest

import minigrad as torch
from minigrad.autograd import engine
from minigrad.exercises import lesson10 as l10
from minigrad.exercises.registry import lesson_exercises

from exercise_support import instructor_definitions, stub, verdict

NOTEBOOK = Path(__file__).resolve().parents[1] / "lessons" / "10_write_the_engine.ipynb"
SOL = instructor_definitions(NOTEBOOK)     # the three solutions, run from the notebook


# --- a reference engine with knobs, to make wrong engines from ------------------------------
LEVELS = ("tensor", "retain", "pre", "node", "post_accumulate", "post")


def engines_count(root):
    """The dependency count taken from minigrad's engine instead of written."""
    task = engine.GraphTask(keep_graph=True, create_graph=False)
    engine.compute_dependencies(task, root)
    return dict(task.dependencies)


def make_engine(order=LEVELS, fifo=False, sum_buffers=True, callbacks=True, release=True,
                count=None, count_none=True, post_hooks_see_original=False, lifo_ties=False,
                counts_dependencies=True, uses_results=("tensor", "pre", "post"),
                calls_post_hooks_with_outputs_only=False):
    """A right engine, or one with the mistake asked for: ``counts_dependencies=False``
    runs a child as soon as one gradient reaches it; ``uses_results`` lists the hook
    levels whose returned values it hands on (the others' are ignored);
    ``calls_post_hooks_with_outputs_only`` calls ``hook(outputs)``, so a post-hook raises."""
    def run(root, grad_outputs, keep_graph):
        deps, buffers, tie = (count or SOL["count_dependencies"])(root), {}, itertools.count()
        ready = [(0 if fifo else -root._sequence_nr(), next(tie), root, grad_outputs)]
        while ready:
            _, _, node, inputs = heapq.heappop(ready)
            inputs, outputs = list(inputs), []
            original = tuple(inputs)
            for level in order:
                if level == "tensor":
                    for nr, hook in engine.tensor_hooks(node):
                        result = hook(inputs[nr])
                        if result is not None and "tensor" in uses_results:
                            inputs[nr] = result
                elif level == "retain":
                    engine.store_retained_grads(node, inputs)
                elif level == "pre":
                    for hook in engine.pre_hooks(node):
                        result = hook(tuple(inputs))
                        if result is not None and "pre" in uses_results:
                            inputs = list(result)
                elif level == "node":
                    outputs = engine.call_node(node, inputs)
                elif level == "post_accumulate":
                    for hook in engine.post_accumulate_hooks(node):
                        hook(node.variable)
                elif level == "post":
                    for hook in engine.post_hooks(node):
                        if calls_post_hooks_with_outputs_only:
                            result = hook(tuple(outputs))
                        else:
                            seen = original if post_hooks_see_original else tuple(inputs)
                            result = hook(tuple(outputs), seen)
                        if result is not None and "post" in uses_results:
                            outputs = list(result)
            if release and not keep_graph:
                node.release_variables()
            for (child, nr), grad in zip(node.next_functions, outputs):
                if child is None:
                    continue
                if not counts_dependencies:          # ready at the first gradient: wrong
                    buffer = engine.new_input_buffer(child)
                    buffer[nr] = grad
                    heapq.heappush(ready, (-child._sequence_nr(), next(tie), child, buffer))
                    continue
                buffer = buffers.setdefault(child, engine.new_input_buffer(child))
                if grad is not None:
                    old = buffer[nr]
                    buffer[nr] = grad if old is None or not sum_buffers else old + grad
                if grad is None and not count_none:
                    continue
                deps[child] -= 1
                if deps[child] == 0:
                    key = next(tie) if fifo else -child._sequence_nr()
                    arrival = -next(tie) if lifo_ties else next(tie)
                    heapq.heappush(ready, (key, arrival, child, buffers.pop(child)))
        if callbacks:
            todo = engine.final_callbacks()
            i = 0
            while i < len(todo):
                todo[i]()
                i += 1
    return run


# --- the instructor solutions and stubs ------------------------------------------------------
def test_registry_lists_three_levels():
    assert [(e.name, e.level) for e in lesson_exercises("10")] == [
        ("count_dependencies", "warm-up"), ("run_backward_core", "core"),
        ("my_run_backward", "stretch")]


def test_instructor_solutions_pass(capsys):
    assert verdict(l10.check_count_dependencies, SOL["count_dependencies"], capsys)
    core = verdict(l10.check_engine_loop, SOL["run_backward_core"], capsys)
    graphs = len(l10._GRAPH_SCENARIOS)
    assert core and f"{graphs}/{graphs} scenarios match" in core.message
    full = verdict(l10.check_full_engine, SOL["my_run_backward"], capsys)
    assert full and f"{len(l10.SCENARIOS)}/{len(l10.SCENARIOS)} scenarios match" in full.message


def test_reference_engine_passes(capsys):
    assert verdict(l10.check_full_engine, make_engine(), capsys)


@pytest.mark.parametrize("check", [l10.check_count_dependencies, l10.check_engine_loop,
                                   l10.check_full_engine])
def test_stub_is_not_implemented(check, capsys):
    result = verdict(check, stub, capsys)
    assert result.status == "not implemented"


# --- engines that must fail -------------------------------------------------------------------
def test_engine_that_runs_minigrads_engine_is_caught(capsys):
    def lazy(root, grad_outputs, keep_graph):
        task = engine.GraphTask(keep_graph, create_graph=False)
        engine.compute_dependencies(task, root)
        for _ in engine._execute(task, root, grad_outputs):
            pass
    for check in (l10.check_engine_loop, l10.check_full_engine):
        result = verdict(check, lazy, capsys)
        assert not result and "minigrad's own engine ran during your pass" in result.message


def test_engine_that_runs_minigrads_engine_on_another_thread_is_caught(capsys):
    import collections
    import threading
    from minigrad.autograd.graph_task import current_graph_task, running

    def on_a_thread(root, grad_outputs, keep_graph):
        task = current_graph_task()           # dependencies already counted by minigrad

        def work():
            with running(task):
                collections.deque(engine._execute(task, root, grad_outputs), maxlen=0)
        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
    for check in (l10.check_engine_loop, l10.check_full_engine):
        result = verdict(check, on_a_thread, capsys)
        assert not result and "minigrad's own engine ran during your pass" in result.message


def test_count_dependencies_from_the_engine_is_caught(capsys):
    result = verdict(l10.check_count_dependencies, engines_count, capsys)
    assert not result and "engine.compute_dependencies" in result.message
    assert "walk next_functions yourself" in result.message


def test_engine_built_on_the_engines_parts_is_caught(capsys):
    def on_ready_queue(root, grad_outputs, keep_graph):
        # the loop of the solution, on minigrad's own ReadyQueue instead of heapq
        deps, buffers, queue = SOL["count_dependencies"](root), {}, engine.ReadyQueue()
        queue.push(root, grad_outputs)
        while queue:
            node, inputs = queue.pop()
            outputs = engine.call_node(node, inputs)
            if not keep_graph:
                node.release_variables()
            for (child, nr), grad in zip(node.next_functions, outputs):
                if child is not None:
                    buffer = buffers.setdefault(child, engine.new_input_buffer(child))
                    buffer[nr] = grad if buffer[nr] is None else buffer[nr] + grad
                    deps[child] -= 1
                    if deps[child] == 0:
                        queue.push(child, buffers.pop(child))
    for answer, part in ((make_engine(count=engines_count), "engine.compute_dependencies"),
                         (on_ready_queue, "engine.ReadyQueue.push")):
        for check in (l10.check_engine_loop, l10.check_full_engine):
            result = verdict(check, answer, capsys)
            assert not result and "on 'a chain' your engine called minigrad's own" in result.message
            assert part in result.message and "heapq" in result.message


def test_engine_that_does_nothing_fails(capsys):
    result = verdict(l10.check_engine_loop, lambda root, grad_outputs, keep_graph: None, capsys)
    assert not result and f"0/{len(l10._GRAPH_SCENARIOS)}" in result.message


@pytest.mark.parametrize("order, scenario", [
    (("pre", "tensor", "retain", "node", "post_accumulate", "post"), "every level at one node"),
    (("retain", "tensor", "pre", "node", "post_accumulate", "post"), "retain_grad sees the hooked gradient"),
    (("tensor", "retain", "pre", "node", "post", "post_accumulate"), "every level at a leaf"),
])
def test_wrong_hook_order_is_caught(order, scenario, capsys):
    result = verdict(l10.check_full_engine, make_engine(order=order), capsys)
    assert not result and f"✗ {scenario}:" in result.message
    assert f"/{len(l10.SCENARIOS)} scenarios match" in result.message


def test_fifo_queue_is_caught(capsys):
    result = verdict(l10.check_engine_loop, make_engine(fifo=True), capsys)
    assert not result and "highest _sequence_nr() first" in result.message


def test_buffers_that_overwrite_are_caught(capsys):
    result = verdict(l10.check_engine_loop, make_engine(sum_buffers=False), capsys)
    assert not result and "does the input buffer add the gradients" in result.message


def test_engine_that_skips_none_gradients_in_the_count_is_caught(capsys):
    # lesson 04's scenario: a pre-hook returning (None,) starves b's AccumulateGrad
    wrong = make_engine(count_none=False)
    core = verdict(l10.check_engine_loop, wrong, capsys)
    assert not core and "✗ a node that sends None:" in core.message
    full = verdict(l10.check_full_engine, wrong, capsys)
    assert not full and "✗ a pre-hook returning (None,) (lesson 04):" in full.message
    assert "decrement the child's count" in core.message


# --- the three mistakes of issue 36: each named for what it is -------------------------------
def _rows(result):
    """{scenario: its failing row (the cause line, the trace line, your code's line)}."""
    return {block.split(":", 1)[0]: block for block in result.message.split("\n  ✗ ")[1:]}


def test_an_engine_without_dependency_counts_is_told_a_node_ran_twice(capsys):
    wrong = make_engine(counts_dependencies=False)
    for check in (l10.check_engine_loop, l10.check_full_engine):
        rows = _rows(verdict(check, wrong, capsys))
        diamond = rows["a diamond"]
        assert diamond.startswith("a diamond: MulBackward0 ran 2 times in one pass: did it run "
                                  "before all of its gradients had arrived?")
        assert "input buffer" not in diamond and "decrement" not in diamond
        # "trace line" and "your code, line" are said apart, each on its own line
        assert "\n      trace line 8 is 'run MulBackward0' on your engine" in diamond
        assert "\n      your code, line " in diamond
        assert rows["a tensor used twice (x * x)"].startswith(
            "a tensor used twice (x * x): AccumulateGrad(x) ran 2 times in one pass")


def test_an_engine_that_ignores_what_a_pre_hook_returns_is_told_so(capsys):
    rows = _rows(verdict(l10.check_full_engine, make_engine(uses_results=("tensor", "post")), capsys))
    assert set(rows) == {"node pre-hooks", "a pre-hook returning (None,) (lesson 04)"}
    for row in rows.values():
        assert "your engine ignored what the pre-hook of MulBackward0 returned" in row
        assert "input buffer add" not in row


@pytest.mark.parametrize("level, says", [
    ("tensor", "your engine ignored what a tensor hook of MulBackward0 returned"),
    ("post", "your engine ignored what the post-hook of"),
])
def test_an_engine_that_ignores_other_hook_results_is_told_so(level, says, capsys):
    kept = tuple(k for k in ("tensor", "pre", "post") if k != level)
    result = verdict(l10.check_full_engine, make_engine(uses_results=kept), capsys)
    assert not result and says in result.message


def test_an_engine_whose_hook_raises_is_told_which_hook_and_how_it_is_called(capsys):
    result = verdict(l10.check_full_engine, make_engine(calls_post_hooks_with_outputs_only=True), capsys)
    row = _rows(result)["a node post-hook's arguments"]
    assert row.startswith("a node post-hook's arguments: the post-hook of MulBackward0 raised TypeError")
    assert "your engine called it with 1 argument (a tuple), minigrad's engine calls it as " \
           "hook(grad_inputs, grad_outputs)" in row
    assert "\n      your code, line " in row and "hook(tuple(outputs))" in row
    # the scenario whose hook raises on purpose is no mistake: it matches
    assert "  ✓ a hook that raises" in result.message.splitlines()


def test_a_hook_that_raised_is_an_event_and_the_timeline_marks_it():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from minigrad.viz import format_events, hook_timeline

    def scenario():
        l10._s_node_post_hook_args([])
    mine = l10.engine_events(scenario, make_engine(calls_post_hooks_with_outputs_only=True))
    assert isinstance(mine.error, TypeError) and mine.where is not None
    raised = [e for e in mine if isinstance(e.result, BaseException)]
    assert [(e.kind, mine.name(e.node)) for e in raised] == [("post_hook", "MulBackward0")]
    assert format_events(mine)[-1].endswith("raised TypeError")
    ax = hook_timeline(mine, labels=mine.labels)
    assert "raised" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    # on minigrad's engine, the hook that raises on purpose is marked too
    real = l10.engine_events(lambda: l10._s_hook_raises([]))
    assert [(e.kind, real.name(e.node)) for e in real if isinstance(e.result, BaseException)] == [
        ("tensor_hook", "MulBackward0")]


def test_the_timelines_name_the_leaves_after_their_variables():
    def section_one_pass():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([3.0, -1.0], requires_grad=True)
        y = x * w
        x.register_post_accumulate_grad_hook(lambda p: None)
        (y.sin() + y).sum().backward()
    for run_backward in (None, SOL["my_run_backward"]):
        events = l10.engine_events(section_one_pass, run_backward)
        names = {events.name(e.node) for e in events}
        assert {"AccumulateGrad(x)", "AccumulateGrad(w)"} <= names
        assert sorted(events.labels.values()) == ["w", "x"]
    # a scenario's own names beat those of the helper that made its leaves
    events = l10.engine_events(lambda: l10._s_prehook_drops_gradient([]))
    assert {"AccumulateGrad(a)", "AccumulateGrad(b)"} <= {events.name(e.node) for e in events}


def test_post_hooks_that_get_the_inputs_before_the_pre_hooks_are_caught(capsys):
    result = verdict(l10.check_full_engine, make_engine(post_hooks_see_original=True), capsys)
    assert not result and "✗ node pre-hooks:" in result.message


def test_scoreboard_lists_the_failing_scenarios_first_each_with_its_first_difference(capsys):
    result = verdict(l10.check_full_engine, make_engine(sum_buffers=False), capsys)
    rows = [row for row in result.message.splitlines()[1:] if row.startswith(("  ✓", "  ✗"))]
    assert len(rows) == len(l10.SCENARIOS)
    assert "  ✓ a chain" in rows
    marks = [row[2] for row in rows]
    failing = marks.count("✗")
    assert failing >= 2 and marks == ["✗"] * failing + ["✓"] * (len(rows) - failing)
    assert f"the {failing} that differ come first:" in result.message.splitlines()[0]
    # each failing row is followed by its first difference, said as a trace line
    blocks = result.message.split("\n  ✗ ")[1:]
    assert len(blocks) == failing
    assert all("\n      trace line " in block or "\n      your engine's trace" in block for block in blocks)


@pytest.mark.parametrize("order, out_of_place", [
    (("tensor", "retain", "pre", "node", "post", "post_accumulate"),
     "post-accumulate hooks of AccumulateGrad(x) should run next, but your engine ran node post-hooks"),
    (("pre", "tensor", "retain", "node", "post_accumulate", "post"),
     "tensor hooks of MulBackward0 should run next, but your engine ran node pre-hooks"),
    (("tensor", "retain", "pre", "node", "post"),
     "post-accumulate hooks of AccumulateGrad(x) should run next"),
])
def test_a_hook_order_bug_names_the_first_hook_level_out_of_place(order, out_of_place, capsys):
    result = verdict(l10.check_full_engine, make_engine(order=order), capsys)
    assert not result and out_of_place in result.message
    assert "input buffer" not in result.message


def test_ties_are_scored_on_what_pytorch_promises_and_the_heap_is_an_extra(capsys):
    assert l10.heap_order() == [0, 2, 5, 4, 1, 3]
    # the instructor solution breaks ties first in, first out: it passes, and learns the truth
    result = verdict(l10.check_full_engine, SOL["my_run_backward"], capsys)
    assert result and "your six tied leaves ran in the order [0, 1, 2, 3, 4, 5]" in result.message
    assert "PyTorch's heap gives [0, 2, 5, 4, 1, 3]" in result.message
    # last in, first out among six ties is scored as right too (the order is not promised)
    assert l10.heap_order(make_engine(lifo_ties=True)) == [5, 4, 3, 2, 1, 0]
    log = []
    with engine.use(make_engine(lifo_ties=True)):
        l10._s_tied_leaves(log)
    want = []
    l10._s_tied_leaves(want)
    assert log == want


def test_heap_order_is_pytorchs():
    real = pytest.importorskip("torch")
    leaves = [real.tensor([float(i)], requires_grad=True) for i in range(6)]
    order = []
    for i, leaf in enumerate(leaves):
        leaf.register_hook(lambda g, i=i: order.append(i))
    stacked = real.stack(leaves)
    (stacked * stacked).sum().backward()
    assert order == l10.heap_order()


def test_recursive_count_dependencies_is_caught(capsys):
    def recursive(root):
        counts = {}

        def visit(node):
            for child, _ in node.next_functions:
                if child is not None:
                    first = child not in counts
                    counts[child] = counts.get(child, 0) + 1
                    if first:
                        visit(child)
        visit(root)
        return counts
    result = verdict(l10.check_count_dependencies, recursive, capsys)
    assert not result and "a chain of 5,000 nodes" in result.message and "explicit stack" in result.message


def test_engine_events_of_a_learners_engine_match_minigrads_hook_for_hook():
    def scenario():
        l10._s_one_node_order([])
    real = [(e.kind, e.node.name()) for e in l10.engine_events(scenario)
            if e.kind in l10._HOOK_LEVELS]
    mine = [(e.kind, e.node.name()) for e in l10.engine_events(scenario, SOL["my_run_backward"])]
    assert mine == real and ("post_hook", "MulBackward0") in mine


def test_spec_claims_on_the_learners_engine():
    rows = {name: (verdict_, holds)
            for name, verdict_, holds, _ in l10.claims_on_engine(SOL["my_run_backward"])}
    assert len(rows) >= 15
    assert all(holds for name, (_, holds) in rows.items() if name not in SOLUTION_DIFFERS)
    assert not any(holds for name, (_, holds) in rows.items() if name in SOLUTION_DIFFERS)
    wrong = {name: holds for name, _, holds, _ in l10.claims_on_engine(make_engine(fifo=True))}
    assert not wrong["c12_ready_queue_order"]


def test_missing_callbacks_are_caught(capsys):
    result = verdict(l10.check_full_engine, make_engine(callbacks=False), capsys)
    assert not result and "final callbacks" in result.message


def test_keeping_saved_values_is_caught(capsys):
    result = verdict(l10.check_engine_loop, make_engine(release=False), capsys)
    assert not result and "release_variables" in result.message


def test_count_dependencies_that_counts_each_child_once(capsys):
    def once(root):
        counts = SOL["count_dependencies"](root)
        return {node: 1 for node in counts}
    result = verdict(l10.check_count_dependencies, once, capsys)
    assert not result and "counts twice" in result.message


# --- the seam --------------------------------------------------------------------------------
def test_use_swaps_backward_and_restores():
    calls = []
    real = make_engine()

    def mine(root, grad_outputs, keep_graph):
        calls.append(root.name())
        real(root, grad_outputs, keep_graph)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with engine.use(mine):
        (x * 3).sum().backward()
        before = engine.real_engine_runs()
        (g,) = torch.autograd.grad((x * x).sum(), x)      # autograd.grad: minigrad's engine
        assert engine.real_engine_runs() > before
    assert calls == ["SumBackward0"]
    assert x.grad.tolist() == [3.0, 3.0] and g.tolist() == [2.0, 4.0]
    (x * 3).sum().backward()                               # restored
    assert calls == ["SumBackward0"] and x.grad.tolist() == [6.0, 6.0]


def test_use_restores_after_an_error():
    def broken(root, grad_outputs, keep_graph):
        raise ValueError("broken engine")
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="broken engine"):
        with engine.use(broken):
            (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]
    assert engine.current_graph_task_id() == -1 and torch.is_grad_enabled()


def test_an_error_in_the_learners_engine_is_located(capsys):
    def assumes_an_edge(root, grad_outputs, keep_graph):
        first_child = root.next_functions[0]     # noqa: F841 (IndexError when the root is a leaf)
        SOL["run_backward_core"](root, grad_outputs, keep_graph)
    result = verdict(l10.check_engine_loop, assumes_an_edge, capsys)
    assert not result and "a leaf as the root" in result.message and "raised IndexError" in result.message
    assert "\n      your code, line " in result.message
    assert ": first_child = root.next_functions[0]" in result.message
    assert "trace line 1 is 'raised IndexError" in result.message


def _hook_added_during_the_pass():
    """A hook on one output of unbind adds a hook to the other output, whose turn at the
    same node is still ahead: PyTorch runs the new hook in this pass."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x.unbind(0)
    log = []

    def on_a(grad):
        log.append("a")
        b.register_hook(lambda g: log.append("b, added by a's hook"))
    a.register_hook(on_a)
    b.register_hook(lambda g: log.append("b"))
    (a * 2 + b * 3).backward()
    return log


def test_the_engine_and_the_seam_read_tensor_hooks_alike():
    """engine.tensor_hooks is what minigrad's engine iterates: each tensor's hooks are read
    when its turn comes, on both engines."""
    want = ["a", "b", "b, added by a's hook"]            # PyTorch 2.13's order
    assert _hook_added_during_the_pass() == want
    with engine.use(SOL["my_run_backward"]):
        assert _hook_added_during_the_pass() == want


# --- the spec/ claims on the learner's engine ---------------------------------------------------
SPEC_SCENARIOS = Path(__file__).resolve().parents[1] / "spec" / "scenarios"
# Claims the solution engine does not reproduce, on purpose. c13 (a hook that changes a
# gradient's shape): the learner's engine does not validate a hook's result, so the error
# comes later, from the next node, with another message. c25 (leaves that become ready
# together): the solution breaks ties first in, first out; PyTorch's heap does not.
SOLUTION_DIFFERS = {"c13_hook_changes_shape", "c25_leaves_ready_together_fifo"}


def _spec_module(name):
    import importlib.util
    import sys
    package = "spec_scenarios_l10"
    if package not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            package, SPEC_SCENARIOS / "__init__.py", submodule_search_locations=[str(SPEC_SCENARIOS)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        spec.loader.exec_module(module)
    import importlib
    return importlib.import_module(f"{package}.{name}")


@pytest.mark.parametrize("name", sorted(p.stem for p in SPEC_SCENARIOS.glob("c*.py")))
def test_spec_scenarios_run_the_same_on_the_solution_engine(name):
    import warnings
    module = _spec_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        want = module.run(torch)
        torch.manual_seed(0)
        with engine.use(SOL["my_run_backward"]):
            got = module.run(torch)
    if name in SOLUTION_DIFFERS:
        assert got != want
    else:
        assert got == want


# --- the lesson itself with a broken engine: Run All goes to the end, the causes are named -----
# Each mistake is made in the instructor notebook's own solutions (the code between the
# markers of run_backward_core and my_run_backward), then the whole notebook runs in a
# kernel, as Run All would.
BROKEN_ENGINES = {
    "skips dependency counting": (
        [("""            buffer = buffers.setdefault(child, engine.new_input_buffer(child))
            if grad is not None:
                old = buffer[input_nr]
                buffer[input_nr] = grad if old is None else old + grad
            deps[child] -= 1
            if deps[child] == 0:
                heapq.heappush(ready, (-child._sequence_nr(), next(tie), child, buffers.pop(child)))""",
          """            buffer = engine.new_input_buffer(child)
            buffer[input_nr] = grad
            heapq.heappush(ready, (-child._sequence_nr(), next(tie), child, buffer))""")],
        {"check_full_engine(my_run_backward)": "MulBackward0 ran 2 times in one pass: did it run "
                                                "before all of its gradients had arrived?",
         "check_engine_loop(run_backward_core)": "MulBackward0 ran 2 times in one pass",
         "side_by_side(section_one_pass": "your engine: the pass raised RuntimeError"}),
    "ignores what a pre-hook returns": (
        [("""            if result is not None:
                inputs = list(result)""", """            pass""")],
        {"check_full_engine(my_run_backward)":
         "your engine ignored what the pre-hook of MulBackward0 returned"}),
    "raises in a hook": (
        [("hook(tuple(outputs), tuple(inputs))", "hook(tuple(outputs))")],
        {"check_full_engine(my_run_backward)": "the post-hook of MulBackward0 raised TypeError",
         "on_engine(my_run_backward, hooks_tour)": "your engine raised TypeError"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("mistake", BROKEN_ENGINES)
def test_the_lesson_runs_to_the_end_with_a_broken_engine_and_names_the_cause(mistake):
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient
    substitutions, says = BROKEN_ENGINES[mistake]
    nb = nbformat.read(NOTEBOOK, as_version=4)
    made = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source and "run_backward" in cell.source:
            for old, new in substitutions:
                made += old in cell.source
                cell.source = cell.source.replace(old, new)
    assert made >= 1, "the mistake was not made: the solution cells changed"
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "Run All stopped before the end"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]

    def printed(marker):
        cell = next(c for c in code if marker in c.source)
        return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    for marker, text in says.items():
        assert text in printed(marker), (marker, printed(marker)[:2000])
    # the last tools of the lesson ran on the broken engine: the spec's claims, one row each
    rows = printed("claims_on_engine(my_run_backward)").splitlines()
    assert len(rows) >= 15 and all("your engine: " in row for row in rows)
