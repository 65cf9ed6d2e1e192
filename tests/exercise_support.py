"""Shared by the tests of the lessons' exercise checks (tests/test_exercises_*.py)."""
import ast
import json
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
