"""Shared by the tests of the lessons' exercise checks (tests/test_exercises_*.py)."""
import ast
import json
import re
from pathlib import Path


def stub(*args, **kwargs):
    """What a student notebook's unanswered exercise does."""
    raise NotImplementedError("your code here")


def swapped(order, a, b):
    """``order`` (a list of event names) with the events ``a`` and ``b`` exchanged: a
    prediction that is wrong in one place."""
    order = list(order)
    i, j = order.index(a), order.index(b)
    order[i], order[j] = order[j], order[i]
    return order


def verdict(check, answer, capsys):
    """Run a lesson's check on ``answer``; it must print exactly its own verdict (and
    never raise). Returns the ``Result``."""
    result = check(answer)
    printed = capsys.readouterr().out
    assert printed.strip() == repr(result)
    return result


def _is_definition(statement, defined):
    """An import, ``def`` or ``class``, or an assignment to plain names that calls nothing
    and reads only names ``defined`` so far (``WORLD = 4``, ``queue_callback =
    Variable._execution_engine.queue_callback``; not ``y = x * 2`` after a computed ``x``)."""
    if isinstance(statement, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
        return True
    if not (isinstance(statement, ast.Assign)
            and all(isinstance(target, ast.Name) for target in statement.targets)):
        return False
    nodes = list(ast.walk(statement.value))
    return not any(isinstance(node, ast.Call) for node in nodes) and all(
        node.id in defined for node in nodes if isinstance(node, ast.Name))


def instructor_definitions(notebook):
    """The names an instructor notebook defines, up to its last solution cell: every
    top-level import, ``def``, ``class`` and call-free assignment of its code cells,
    executed in notebook order in one namespace (returned). Other statements (plots,
    training runs, the ``check_*`` calls whose output the notebook saved) are left out,
    so a solution is judged by its check here and now, not by the ✅ a past run printed."""
    cells = ["".join(c["source"]) for c in json.loads(Path(notebook).read_text())["cells"]
             if c["cell_type"] == "code"]
    last = max(i for i, src in enumerate(cells) if "BEGIN SOLUTION" in src)
    namespace = {"__name__": "__main__"}
    for src in cells[:last + 1]:
        # IPython-only lines (%magics, !shell) are not Python
        code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith(("%", "!")))
        tree = ast.parse(code)
        for statement in tree.body:
            if _is_definition(statement, namespace):
                exec(compile(ast.Module([statement], []), Path(notebook).name, "exec"), namespace)
    return namespace


# --- what a prediction's answer is, and whether a text gives it away ---------------------------
_WORD = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*")


def _words(value) -> list:
    """Words and numbers of a value or text, numbers as floats: "tensor([4., 4.])" and
    [4.0, 4.0] both give 4.0, 4.0."""
    if isinstance(value, dict):
        return [w for key, item in value.items() for w in _words(key) + _words(item)]
    if isinstance(value, (list, tuple)):
        return [w for item in value for w in _words(item)]
    return [str(float(w)) if w[0].isdigit() else w for w in _WORD.findall(str(value))]


def reveals(answer, text: str) -> bool:
    """Whether ``text`` shows ``answer``: its words appear in the text in the same order
    (for a dict, each entry's words, the entries in any order)."""
    def in_order(words):
        it = iter(_words(text))
        return all(word in it for word in words)
    if isinstance(answer, dict):
        return all(in_order(_words(key) + _words(item)) for key, item in answer.items())
    return in_order(_words(answer))


def prediction_answer(path: Path, exercise) -> object:
    """The instructor solution's answer to a prediction exercise, computed by running it.
    ``predict_chain(grad, hooks)`` predicts a rule; its answer is what the rule makes of
    the lesson's example (hook1 doubles, hook2 adds one, both registered on a gradient of
    1): the hooks in the order they ran, then the gradient."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or f"def {exercise.name}(" not in source:
            continue
        defs = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                and n.name == exercise.name]
        if defs:
            namespace = {}
            exec(compile(ast.Module(defs, []), str(path), "exec"), namespace)
            predict = namespace[exercise.name]
            if not defs[0].args.args:
                return predict()
            ran = []
            hooks = [lambda g: ran.append("hook1") or g * 2, lambda g: ran.append("hook2") or g + 1]
            result = predict(1.0, hooks)
            return [*ran, result]
    raise AssertionError(f"{path.name}: no cell defines {exercise.name}")
