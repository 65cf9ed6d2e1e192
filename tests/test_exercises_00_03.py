"""The checks of lessons 00-03: a right answer gets ✅, typical wrong answers get their
specific ❌ message, a stub gets "not implemented yet", and no check ever raises."""

import minigrad as torch
from minigrad.autograd.engine import record_events
from minigrad.exercises import lesson00, lesson01, lesson02, lesson03, reachable_nodes
from minigrad.viz import graph_nodes


from exercise_support import stub, verdict


# --- lesson 00 ---------------------------------------------------------------------------
def _reachable(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        stack.extend(c for c, _ in n.next_functions)
    return seen


def test_count_nodes(capsys):
    assert verdict(lesson00.check_count_nodes, lambda t: len(_reachable(t)), capsys)
    # counting edges instead of distinct nodes (x used twice counts AccumulateGrad twice)
    def count_edges(t):
        n, stack = 0, [t.grad_fn]
        while stack:
            node = stack.pop()
            n += 1
            stack.extend(c for c, _ in node.next_functions if c is not None)
        return n
    r = verdict(lesson00.check_count_nodes, count_edges, capsys)
    assert not r and "(x used twice)" in r.message
    assert "Did you count a node twice?" in r.message
    r = verdict(lesson00.check_count_nodes,
                lambda t: len([n for n in _reachable(t) if not hasattr(n, "variable")]), capsys)
    assert not r and "forget the AccumulateGrad" in r.message
    # forgetting the (None, 0) edge of an input that needs no grad: a crash, with advice
    def no_none_check(t):
        seen, stack = set(), [t.grad_fn]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(c for c, _ in node.next_functions)
        return len(seen)
    r = verdict(lesson00.check_count_nodes, no_none_check, capsys)
    assert not r and r.status == "error" and "stack.extend(c for c, _ in node.next_functions)" in r.message
    assert "skip the None children" in r.message
    # letting something else walk the graph: the engine, or a ready-made walker
    def engine_counts(t):
        with record_events() as events:
            t.backward(retain_graph=True)
        return sum(e.kind == "node_start" for e in events)
    r = verdict(lesson00.check_count_nodes, engine_counts, capsys)
    assert not r and "ran a backward pass" in r.message and "walk the graph yourself" in r.message
    for walker in (lambda t: graph_nodes(t), lambda t: reachable_nodes(t.grad_fn)):
        r = verdict(lesson00.check_count_nodes, lambda t: len(walker(t)), capsys)
        assert not r and "which walks the graph for you" in r.message
    r = verdict(lesson00.check_count_nodes, stub, capsys)
    assert not r and "not implemented yet" in r.message


def test_walkers_found_by_a_freshly_imported_check(capsys):
    """A grader imports minigrad.exercises afresh (registry: load_check(fresh=True)); the
    learner's reachable_nodes, imported before, is still recognised."""
    import sys
    from minigrad.exercises.registry import EXERCISES
    saved = {m: mod for m, mod in sys.modules.items() if m.startswith("minigrad.exercises")}
    try:
        check = next(e for e in EXERCISES["00"] if e.check == "check_count_nodes").load_check(fresh=True)
        assert check is not lesson00.check_count_nodes
        r = verdict(check, lambda t: len(reachable_nodes(t.grad_fn)), capsys)
        assert not r and "called reachable_nodes, which walks the graph for you" in r.message
    finally:
        sys.modules.update(saved)


def test_find_leaves(capsys):
    def right(t):
        return [n.variable for n in _reachable(t) if hasattr(n, "variable")]
    assert verdict(lesson00.check_find_leaves, right, capsys)
    r = verdict(lesson00.check_find_leaves,
                lambda t: [n.variable.detach().clone() for n in _reachable(t) if hasattr(n, "variable")],
                capsys)
    assert not r and "not the leaf object itself" in r.message
    r = verdict(lesson00.check_find_leaves, lambda t: right(t)[:1], capsys)
    assert not r and "fewer than" in r.message
    def engine_leaves(t):
        with record_events() as events:
            t.backward(retain_graph=True)
        return [e.node.variable for e in events if e.kind == "node_start" and hasattr(e.node, "variable")]
    r = verdict(lesson00.check_find_leaves, engine_leaves, capsys)
    assert not r and "ran a backward pass" in r.message
    r = verdict(lesson00.check_find_leaves,
                lambda t: [n.variable for n in graph_nodes(t) if hasattr(n, "variable")], capsys)
    assert not r and "called graph_nodes, which walks the graph for you" in r.message
    r = verdict(lesson00.check_find_leaves, stub, capsys)
    assert not r and "not implemented yet" in r.message


def _paths(t, leaf):
    memo, stack = {}, [(t.grad_fn, False)]
    while stack:
        node, done = stack.pop()
        if node in memo:
            continue
        if getattr(node, "variable", None) is leaf:
            memo[node] = 1
        elif done:
            memo[node] = sum(memo[c] for c, _ in node.next_functions if c is not None)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c, _ in node.next_functions if c is not None)
    return memo[t.grad_fn]


def _recursive_paths(t, leaf):
    def go(node):
        if node is None:
            return 0
        if getattr(node, "variable", None) is leaf:
            return 1
        return sum(go(c) for c, _ in node.next_functions)
    return go(t.grad_fn)


def test_count_paths(capsys):
    assert verdict(lesson00.check_count_paths, _paths, capsys)
    # a set of children: x * x gives one path instead of two
    def set_of_children(t, leaf):
        def go(node):
            if getattr(node, "variable", None) is leaf:
                return 1
            return sum(go(c) for c in {c for c, _ in node.next_functions if c is not None})
        return go(t.grad_fn)
    r = verdict(lesson00.check_count_paths, set_of_children, capsys)
    assert not r and "returned 1, expected 2" in r.message and "two edges, two paths" in r.message
    # a node visited once: the shared y is counted through one consumer only
    def seen_once(t, leaf):
        seen, n, stack = set(), 0, [t.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            n += getattr(node, "variable", None) is leaf
            stack.extend(c for c, _ in node.next_functions)
        return n
    r = verdict(lesson00.check_count_paths, seen_once, capsys)
    assert not r and "(x * x)" in r.message and "expected 2" in r.message
    r = verdict(lesson00.check_count_paths, lambda t, leaf: max(1, _paths(t, leaf)), capsys)
    assert not r and "(c needs no grad)" in r.message and "the answer is 0" in r.message
    # right on small graphs, but one Python call per node: RecursionError on the long chain
    r = verdict(lesson00.check_count_paths, _recursive_paths, capsys)
    assert not r and "raised RecursionError" in r.message and "explicit stack" in r.message
    # raising the recursion limit is not the way
    import sys
    def raises_limit(t, leaf):
        sys.setrecursionlimit(sys.getrecursionlimit() + 1)
        return _paths(t, leaf)
    limit = sys.getrecursionlimit()
    r = verdict(lesson00.check_count_paths, raises_limit, capsys)
    assert not r and "raised Python's recursion limit" in r.message
    assert sys.getrecursionlimit() == limit
    def after_backward(t, leaf):          # runs the engine, e.g. to read x.grad of a sum graph
        t.backward(retain_graph=True)
        return _paths(t, leaf)
    r = verdict(lesson00.check_count_paths, after_backward, capsys)
    assert not r and "ran a backward pass" in r.message
    r = verdict(lesson00.check_count_paths, lambda t, leaf: float(_paths(t, leaf)), capsys)
    assert not r and "expected an int" in r.message
    r = verdict(lesson00.check_count_paths, stub, capsys)
    assert not r and "not implemented yet" in r.message


# --- lesson 01 ---------------------------------------------------------------------------
def topo(root):
    order, seen = [], set()
    def visit(n):
        if n is None or n in seen:
            return
        seen.add(n)
        for c, _ in n.next_functions:
            visit(c)
        order.append(n)
    visit(root)
    return order[::-1]


def deps(root):
    d, seen, stack = {}, {root}, [root]
    while stack:
        n = stack.pop()
        for c, _ in n.next_functions:
            if c is None:
                continue
            d[c] = d.get(c, 0) + 1
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return d


def engine_order(loss, pick=max):
    d, ready, out = deps(loss.grad_fn), [loss.grad_fn], []
    while ready:
        n = pick(ready, key=lambda n: n._sequence_nr())
        ready.remove(n)
        out.append(n)
        for c, _ in n.next_functions:
            if c is not None:
                d[c] -= 1
                if d[c] == 0:
                    ready.append(c)
    return out


def kahn(root):
    d, ready, out = deps(root), [root], []
    while ready:
        n = ready.pop()
        out.append(n)
        for c, _ in n.next_functions:
            if c is not None:
                d[c] -= 1
                if d[c] == 0:
                    ready.append(c)
    return out


def test_topo_order(capsys):
    assert verdict(lesson01.check_topo_order, kahn, capsys)
    r = verdict(lesson01.check_topo_order, lambda root: kahn(root)[::-1], capsys)
    assert not r and "must start at the root" in r.message
    r = verdict(lesson01.check_topo_order, lambda root: kahn(root)[:-1], capsys)
    assert not r and "is missing from your order" in r.message
    def bfs(root):                       # places a node before all its senders are placed
        out, seen = [root], {root}
        for n in out:
            for c, _ in n.next_functions:
                if c is not None and c not in seen:
                    seen.add(c)
                    out.append(c)
        return out
    r = verdict(lesson01.check_topo_order, bfs, capsys)
    assert not r and "which sends it a gradient" in r.message and "count reaches zero" in r.message
    # the recursive topo_sort of section 1: right on small graphs, RecursionError on the chain
    r = verdict(lesson01.check_topo_order, topo, capsys)
    assert not r and "RecursionError" in r.message and "dependency counts" in r.message
    import sys
    limit = sys.getrecursionlimit()
    def raises_limit(root):
        sys.setrecursionlimit(20000)
        return topo(root)
    r = verdict(lesson01.check_topo_order, raises_limit, capsys)
    assert not r and "raised Python's recursion limit" in r.message
    assert sys.getrecursionlimit() == limit
    # reading the order off the real engine: run a pass from the root's tensor... via autograd
    def from_engine(root):
        from minigrad.autograd.engine import record_events
        x = torch.tensor([1.0], requires_grad=True)
        with record_events():
            (x * 2).sum().backward()
        return kahn(root)
    r = verdict(lesson01.check_topo_order, from_engine, capsys)
    assert not r and "ran minigrad's engine" in r.message
    r = verdict(lesson01.check_topo_order, stub, capsys)
    assert not r and "not implemented yet" in r.message


def test_engine_order(capsys):
    assert verdict(lesson01.check_engine_order, engine_order, capsys)
    r = verdict(lesson01.check_engine_order, lambda loss: topo(loss.grad_fn), capsys)
    assert not r and "entry 2 is 'AccumulateGrad(w)', expected 'AccumulateGrad(x)'" in r.message
    assert "highest _sequence_nr()" in r.message
    # the bypass a trial learner used: run the real engine under record_events
    from minigrad.autograd.engine import record_events
    def real_engine(loss):
        with record_events() as events:
            loss.backward(retain_graph=True)
        return [e.node.name() for e in events if e.kind == "node_start"]
    r = verdict(lesson01.check_engine_order, real_engine, capsys)
    assert not r and "ran minigrad's engine" in r.message and "Simulate it" in r.message
    # or step through it with backward_steps (what the stepper uses)
    from minigrad.autograd import engine as eng
    def stepper(loss):
        return [e.node.name() for e in eng.backward_steps(loss, retain_graph=True)
                if e.kind == "node_start"]
    r = verdict(lesson01.check_engine_order, stepper, capsys)
    assert not r and "ran minigrad's engine" in r.message
    # a crash inside minigrad is reported at the learner's own line
    r = verdict(lesson01.check_engine_order, lambda loss: [n.name() for n in loss], capsys)
    assert not r and r.status == "error" and "[n.name() for n in loss]" in r.message
    r = verdict(lesson01.check_engine_order, stub, capsys)
    assert not r and "not implemented yet" in r.message


def test_engine_order_tests_the_tie_rule_and_wants_nodes(capsys):
    def last_of_equals(ready, key):             # ties last in, first out
        return max(reversed(ready), key=key)
    r = verdict(lesson01.check_engine_order, lambda loss: engine_order(loss, last_of_equals), capsys)
    assert not r and "expected 'AccumulateGrad(x)'" in r.message and "became ready first" in r.message
    r = verdict(lesson01.check_engine_order, lambda loss: [n.name() for n in engine_order(loss)], capsys)
    assert not r and "return the nodes themselves" in r.message


def test_engine_order_may_not_borrow_the_engines_count_or_queue(capsys):
    from minigrad.autograd import engine as eng

    def with_engine_counts(loss):
        task = eng.GraphTask(keep_graph=True, create_graph=False)
        eng.compute_dependencies(task, loss.grad_fn)
        return engine_order(loss)

    def with_ready_queue(loss):
        d, queue, out = deps(loss.grad_fn), eng.ReadyQueue(), []
        queue.push(loss.grad_fn, [])
        while queue:
            n, _ = queue.pop()
            out.append(n)
            for c, _ in n.next_functions:
                if c is not None:
                    d[c] -= 1
                    if d[c] == 0:
                        queue.push(c, [])
        return out
    for answer, part in ((with_engine_counts, "compute_dependencies"), (with_ready_queue, "ReadyQueue")):
        r = verdict(lesson01.check_engine_order, answer, capsys)
        assert not r and part in r.message and "a list of your own" in r.message


def test_topo_order_of_names_is_told_to_return_nodes(capsys):
    r = verdict(lesson01.check_topo_order, lambda root: [n.name() for n in kahn(root)], capsys)
    assert not r and "return the nodes themselves" in r.message and "is missing" not in r.message


RIGHT_ORDER = ["SumBackward0", "MulBackward0", "SinBackward0", "AccumulateGrad(w)",
               "ExpBackward0", "AccumulateGrad(x)"]


def test_predict_engine_order(capsys):
    assert verdict(lesson01.check_predict_engine_order, lambda: list(RIGHT_ORDER), capsys)
    # creation order instead of sequence numbers: explains which is created later
    r = verdict(lesson01.check_predict_engine_order,
                lambda: ["SumBackward0", "MulBackward0", "ExpBackward0", "SinBackward0",
                         "AccumulateGrad(x)", "AccumulateGrad(w)"], capsys)
    assert not r and "step 3 of your order is ExpBackward0, which is not the node the engine runs " \
                     "there" in r.message
    assert "ready nodes are ExpBackward0, SinBackward0" in r.message
    assert "which of them was created last in forward?" in r.message
    assert "SinBackward0 was" not in r.message and "engine runs SinBackward0" not in r.message
    # the leaves last, as a topological sort by depth would: AccumulateGrad jumps the queue
    r = verdict(lesson01.check_predict_engine_order,
                lambda: ["SumBackward0", "MulBackward0", "SinBackward0", "ExpBackward0",
                         "AccumulateGrad(w)", "AccumulateGrad(x)"], capsys)
    assert not r and "step 4" in r.message and "2**64 - 1" in r.message
    # a node that is not ready yet
    r = verdict(lesson01.check_predict_engine_order,
                lambda: ["SumBackward0", "MulBackward0", "AccumulateGrad(w)"], capsys)
    assert not r and "is not ready: it still waits for the gradient from SinBackward0" in r.message
    r = verdict(lesson01.check_predict_engine_order, lambda: RIGHT_ORDER[:4], capsys)
    assert not r and "you listed 4 nodes, the engine runs 6" in r.message
    # an empty list names the six nodes, but not in the engine's order
    r = verdict(lesson01.check_predict_engine_order, lambda: [], capsys)
    assert not r and "you listed 0 nodes" in r.message and " → ".join(RIGHT_ORDER) not in r.message
    assert ", ".join(RIGHT_ORDER) not in r.message
    # measuring instead of predicting: run section 3's pass and read the order off it
    def measured():
        out, labels = lesson01._section3_graph()
        with record_events() as events:
            out.backward()
        return [lesson01._label(e.node, labels) for e in events if e.kind == "node_start"]
    r = verdict(lesson01.check_predict_engine_order, measured, capsys)
    assert not r and "measures it instead of predicting it" in r.message
    r = verdict(lesson01.check_predict_engine_order,
                lambda: RIGHT_ORDER[:2] + ["AddBackward0"] + RIGHT_ORDER[3:], capsys)
    assert not r and "'AddBackward0' is not a node of this graph" in r.message
    r = verdict(lesson01.check_predict_engine_order, lambda: "SumBackward0", capsys)
    assert not r and "return a list" in r.message
    r = verdict(lesson01.check_predict_engine_order, stub, capsys)
    assert not r and "not implemented yet" in r.message


# --- lesson 02 ---------------------------------------------------------------------------
def make_clip_hook(max_norm):
    def hook(g):
        norms = g.pow(2).sum(dim=1, keepdim=True).sqrt()
        return g * torch.where(norms > max_norm, max_norm / norms.clamp(min=1e-12),
                               torch.ones_like(norms))
    return hook


def test_clip_hook(capsys):
    assert verdict(lesson02.check_clip_hook, make_clip_hook, capsys)
    def whole(m):                         # section 4's clipper: one factor for the matrix
        def hook(g):
            norm = g.pow(2).sum().sqrt().item()
            return g * (m / norm) if norm > m else None
        return hook
    r = verdict(lesson02.check_clip_hook, whole, capsys)
    assert not r and "wrong values at index [0, 0]" in r.message and "whole matrix" in r.message
    r = verdict(lesson02.check_clip_hook, lambda m: (lambda g: g.clamp(-m, m)), capsys)
    assert not r and "clipping each value (clamp)" in r.message
    def always(m):                        # rescales every row to max_norm, small ones too
        return lambda g: g * (m / g.pow(2).sum(dim=1, keepdim=True).sqrt().clamp(min=1e-12))
    r = verdict(lesson02.check_clip_hook, always, capsys)
    assert not r and "must stay unchanged" in r.message
    def columns(m):
        def hook(g):
            n = g.pow(2).sum(dim=0, keepdim=True).sqrt()
            return g * torch.where(n > m, m / n.clamp(min=1e-12), torch.ones_like(n))
        return hook
    r = verdict(lesson02.check_clip_hook, columns, capsys)
    assert not r and "clips the columns" in r.message
    def no_keepdim(m):                    # [rows] broadcasts along the columns
        def hook(g):
            n = g.pow(2).sum(dim=1).sqrt()
            return g * torch.where(n > m, m / n.clamp(min=1e-12), torch.ones_like(n))
        return hook
    r = verdict(lesson02.check_clip_hook, no_keepdim, capsys)
    assert not r and "keepdim=True" in r.message
    def zero_row_nan(m):                  # 0 / 0 on the row of zeros
        def hook(g):
            n = g.pow(2).sum(dim=1, keepdim=True).sqrt()
            return g / n * torch.where(n > m, torch.full_like(n, m), n)
        return hook
    r = verdict(lesson02.check_clip_hook, zero_row_nan, capsys)
    assert not r and "row of zeros has norm 0" in r.message
    r = verdict(lesson02.check_clip_hook, lambda m: (lambda g: torch.ones(1)), capsys)
    assert not r and "has changed the size of value" in r.message
    r = verdict(lesson02.check_clip_hook, lambda m: None, capsys)
    assert not r and "expected a function" in r.message
    r = verdict(lesson02.check_clip_hook, stub, capsys)
    assert not r and "not implemented yet" in r.message


def _nan_watch(first_only=True, test=lambda g: not bool(torch.isfinite(g).all()), returns=None,
               shared_counter=False, handles=True):
    def attach(params, found):
        shared = [0]
        def make(name):
            count = shared if shared_counter else [0]
            def hook(g):
                count[0] += 1
                if (not found or not first_only) and test(g):
                    found.append((count[0], name))
                return returns(g) if returns else None
            return hook
        hs = [p.register_hook(make(name)) for name, p in params.items()]
        return hs if handles else None
    return attach


def test_attach_nan_watch(capsys):
    assert verdict(lesson02.check_attach_nan_watch, _nan_watch(), capsys)
    r = verdict(lesson02.check_attach_nan_watch, _nan_watch(first_only=False), capsys)
    assert not r and "found is [(3, 'w2'), (3, 'w1')" in r.message and "only the first" in r.message
    # a nan-only test misses the inf of sqrt(0)'s gradient
    r = verdict(lesson02.check_attach_nan_watch,
                _nan_watch(test=lambda g: bool(torch.isnan(g).any())), capsys)
    assert not r and "found is [], expected [(2, 'a')]" in r.message and "torch.isfinite" in r.message
    # one counter for all the tensors: the step is wrong
    r = verdict(lesson02.check_attach_nan_watch, _nan_watch(shared_counter=True), capsys)
    assert not r and "found is [(5, 'w2')], expected [(3, 'w2')]" in r.message
    assert "share one counter" in r.message
    # the names swapped: the first hook to see the nan is the engine's choice, not params' order
    def swapped(params, found):
        return _nan_watch()(dict(zip(reversed(list(params)), params.values())), found)
    r = verdict(lesson02.check_attach_nan_watch, swapped, capsys)
    assert not r and "found is [(3, 'w1')]" in r.message and "engine hands out" in r.message
    # the closures of a for loop share the last name: w1 is named for w2's gradient
    def late_binding(params, found):
        hs, counts = [], {}
        for name, p in params.items():
            def hook(g):
                counts[name] = counts.get(name, 0) + 1
                if not found and not bool(torch.isfinite(g).all()):
                    found.append((counts[name], name))
            hs.append(p.register_hook(hook))
        return hs
    r = verdict(lesson02.check_attach_nan_watch, late_binding, capsys)
    assert not r and "expected [(3, 'w2')]" in r.message and "helper function" in r.message
    # a watch that repairs the gradient changes it
    r = verdict(lesson02.check_attach_nan_watch,
                _nan_watch(returns=lambda g: torch.where(torch.isfinite(g), g, torch.zeros_like(g))),
                capsys)
    assert not r and "changed the gradients" in r.message
    r = verdict(lesson02.check_attach_nan_watch,
                _nan_watch(test=lambda g: False), capsys)
    assert not r and "Nothing was recorded" in r.message
    r = verdict(lesson02.check_attach_nan_watch, _nan_watch(handles=False), capsys)
    assert not r and "returned 0 handle(s), expected 2" in r.message
    def fake_handles(params, found):      # handles that do not remove the hooks
        _nan_watch()(params, found)
        return [type("H", (), {"remove": lambda self: None})() for _ in params]
    r = verdict(lesson02.check_attach_nan_watch, fake_handles, capsys)
    assert not r and "after removing the handles" in r.message
    r = verdict(lesson02.check_attach_nan_watch, stub, capsys)
    assert not r and "not implemented yet" in r.message


def test_predict_chain(capsys):
    def chain(g, hooks):
        for h in hooks:
            r = h(g)
            g = g if r is None else r
        return g
    assert verdict(lesson02.check_predict_chain, chain, capsys)
    r = verdict(lesson02.check_predict_chain, lambda g, hooks: chain(g, hooks[::-1]), capsys)
    assert not r and "LIFO" in r.message and "returns [" in r.message
    assert "expected" not in r.message
    def not_chained(g, hooks):            # every hook on the original gradient, the last wins
        out = g
        for h in hooks:
            r = h(g)
            out = out if r is None else r
        return out
    r = verdict(lesson02.check_predict_chain, not_chained, capsys)
    assert not r and "the hooks are chained" in r.message
    def engine_says(g, hooks):            # registers the hooks on a tensor and asks the engine
        x = torch.zeros_like(g, requires_grad=True)
        for h in hooks:
            x.register_hook(h)
        (x * g).sum().backward()
        return x.grad
    r = verdict(lesson02.check_predict_chain, engine_says, capsys)
    assert not r and "asks the engine instead of predicting it" in r.message
    r = verdict(lesson02.check_predict_chain, stub, capsys)
    assert not r and "not implemented yet" in r.message


# --- lesson 03 ---------------------------------------------------------------------------
def test_predict_second_backward(capsys):
    assert verdict(lesson03.check_predict_second_backward, lambda: ([4.0, 4.0], [8.0, 8.0]), capsys)
    assert verdict(lesson03.check_predict_second_backward,
                   lambda: (torch.tensor([4.0, 4.0]), torch.tensor([8.0, 8.0])), capsys)
    r = verdict(lesson03.check_predict_second_backward, lambda: ([2.0, 2.0], [8.0, 8.0]), capsys)
    assert not r and "y.grad = [2.0, 2.0], which is not what the second pass leaves" in r.message
    assert "4.0" not in r.message
    assert "accumulates like a leaf's" in r.message
    r = verdict(lesson03.check_predict_second_backward, lambda: ([4.0, 4.0], [4.0, 4.0]), capsys)
    assert not r and "x.grad after one pass" in r.message and "never overwrites" in r.message
    r = verdict(lesson03.check_predict_second_backward, lambda: ([3.0, 3.0], [8.0, 8.0]), capsys)
    assert not r and "1 + 1" in r.message and "What does pass 2 do" in r.message
    r = verdict(lesson03.check_predict_second_backward, lambda: lesson03._section2(2), capsys)
    assert not r and "measures them instead of predicting them" in r.message
    r = verdict(lesson03.check_predict_second_backward, lambda: 4.0, capsys)
    assert not r and "return two lists" in r.message
    r = verdict(lesson03.check_predict_second_backward, stub, capsys)
    assert not r and "not implemented yet" in r.message


def _sgd_every(divide=True, free=True, shared=False):
    def attach(ps, lr, k):
        counter = [0]
        def make():
            count = counter if shared else [0]
            def hook(p):
                count[0] += 1
                if count[0] % k == 0:
                    p.sub_(lr * p.grad / (k if divide else 1))
                    if free:
                        p.grad = None
            return hook
        return [p.register_post_accumulate_grad_hook(make()) for p in ps]
    return attach


def test_attach_sgd_every(capsys):
    assert verdict(lesson03.check_attach_sgd_every, _sgd_every(), capsys)
    def fused(ps, lr, k):                 # section 4's step on every gradient
        def step(p):
            p.sub_(lr * p.grad)
            p.grad = None
        return [p.register_post_accumulate_grad_hook(step) for p in ps]
    r = verdict(lesson03.check_attach_sgd_every, fused, capsys)
    assert not r and "after micro-batch 1 of 3 parameter 0 already moved" in r.message
    r = verdict(lesson03.check_attach_sgd_every, _sgd_every(shared=True), capsys)
    assert not r and "already moved" in r.message and "each parameter counts its own" in r.message
    r = verdict(lesson03.check_attach_sgd_every, _sgd_every(divide=False), capsys)
    assert not r and "wrong values" in r.message and "p -= lr * p.grad / 3" in r.message
    r = verdict(lesson03.check_attach_sgd_every, _sgd_every(free=False), capsys)
    assert not r and "after micro-batch 3 (a step)" in r.message and "still held" in r.message
    def step_all_at_the_end(ps, lr, k):   # one counter; the last hook of a k-th pass steps all
        calls = [0]
        def hook(p):
            calls[0] += 1
            if calls[0] % (k * len(ps)) == 0:
                for q in ps:
                    q.sub_(lr * q.grad / k)
                    q.grad = None
        return [p.register_post_accumulate_grad_hook(hook) for p in ps]
    r = verdict(lesson03.check_attach_sgd_every, step_all_at_the_end, capsys)
    assert not r and "still held its gradient when its own hook had run" in r.message
    r = verdict(lesson03.check_attach_sgd_every, lambda ps, lr, k: None, capsys)
    assert not r and "returned 0 handles, expected 4" in r.message
    r = verdict(lesson03.check_attach_sgd_every, stub, capsys)
    assert not r and "not implemented yet" in r.message


def _retain(slot=lambda t: t.output_nr, accumulate=True, in_place=False, via_tensor_hook=False,
            returns=False):
    def my_retain_grad(t, store):
        def keep(g):
            if "grad" not in store or not accumulate:
                store["grad"] = g.clone()
            elif in_place:
                store["grad"].add_(g)
            else:
                store["grad"] = store["grad"] + g
        if via_tensor_hook:
            t.register_hook(keep)
            return
        def pre(grad_outputs):
            keep(grad_outputs[slot(t)])
            if returns:
                return tuple(g * 2 for g in grad_outputs)
        t.grad_fn.register_prehook(pre)
    return my_retain_grad


def test_my_retain_grad(capsys):
    assert verdict(lesson03.check_my_retain_grad, _retain(), capsys)
    r = verdict(lesson03.check_my_retain_grad, _retain(via_tensor_hook=True), capsys)
    assert not r and "with a hook registered after yours" in r.message
    assert "got 4, expected 5" in r.message and "runs before the hooks registered later" in r.message
    r = verdict(lesson03.check_my_retain_grad, _retain(accumulate=False), capsys)
    assert not r and "with two backward passes" in r.message and "(old + new)" in r.message
    r = verdict(lesson03.check_my_retain_grad, _retain(in_place=True), capsys)
    assert not r and "changed during pass 2" in r.message
    r = verdict(lesson03.check_my_retain_grad, _retain(slot=lambda t: 0), capsys)
    assert not r and "x.unbind(0)" in r.message and "grad_outputs[t.output_nr]" in r.message
    r = verdict(lesson03.check_my_retain_grad, _retain(returns=True), capsys)
    assert not r and "must not change gradients" in r.message
    # the bypass: calling the real retain_grad
    r = verdict(lesson03.check_my_retain_grad, lambda t, store: t.retain_grad(), capsys)
    assert not r and "called t.retain_grad()" in r.message
    def sneaky(t, store):                 # retain_grad, then copy t.grad into the store
        t.retain_grad()
        t.grad_fn.register_prehook(lambda go: store.__setitem__("grad", t.grad))
    r = verdict(lesson03.check_my_retain_grad, sneaky, capsys)
    assert not r and "called t.retain_grad()" in r.message
    assert not torch.Tensor.retain_grad.__name__.startswith("spy")
    def private_hook(t, store):           # retain_grad's own hook, without calling retain_grad
        t.grad_fn._set_retains_grad_hook(t.output_nr, t)
        t.grad_fn.register_prehook(lambda go: store.__setitem__("grad", t._grad))
    r = verdict(lesson03.check_my_retain_grad, private_hook, capsys)
    assert not r and "retain_grad's own hook" in r.message
    r = verdict(lesson03.check_my_retain_grad, lambda t, store: None, capsys)
    assert not r and "store['grad'] is missing" in r.message
    r = verdict(lesson03.check_my_retain_grad, stub, capsys)
    assert not r and "not implemented yet" in r.message
