"""Write ``docs/ops.md``: every op PyTorch tests and every public name of its op namespaces,
each covered by a test of minigrad, left out for a stated reason, or missing.

    python tools/ops_inventory.py            # rewrite docs/ops.md
    python tools/ops_inventory.py --check    # exit 1 if docs/ops.md is stale

The names come from the installed PyTorch (2.13): every entry of OpInfo's ``op_db`` and
ModuleInfo's ``module_db`` (PyTorch's own test databases), and every public name (no
leading underscore; not a module, not a typing helper or a docs dictionary) of ``torch``,
``torch.Tensor``, ``torch.nn.functional``, ``torch.nn``, ``torch.linalg`` and
``torch.special``. Each gets a status:

- **covered**: a test calls it on minigrad. For what OpInfo and ModuleInfo entries
  exercise (the entry's function, method and in-place variants, the ``torch`` names its
  lambda uses, the module class), that test is the OpInfo sweep (``tests/opinfo``), as
  recorded in ``tests/opinfo/expected.json``: the entry is run and minigrad has the name
  (an entry whose samples cannot be converted, or that stops on something missing, calls
  nothing). For the rest, a test file under ``tests/`` uses the name for real: an attribute
  or a call reached from ``minigrad`` (or from ``torch`` in the scripts the differential
  and compatibility suites run under both frameworks), found by reading the files' syntax
  trees, so a word in a comment or a string does not count. A fixture that returns
  minigrad (the ``T`` of tests that run the same code on both frameworks) counts as
  minigrad, and a ``Tensor`` method counts when a file that uses minigrad calls it on some
  value (whose type the syntax tree does not know).
- **left out**: a rule of ``tests/opinfo/opinfo_groups.py`` says why (devices,
  TorchScript internals, quantized, sparse and nested storage, named tensors, complex,
  deprecated per PyTorch's own words, which are quoted).
- **missing**: minigrad does not have it, or has it and no test calls it.

The file also lists the left-out OpInfo entries and the failing ones with their stage
and cause, and the summary figures. It depends only on the installed PyTorch, minigrad,
``tests/opinfo/expected.json`` and the test files, so ``tests/test_ops_inventory.py`` can
tell when it is stale. When minigrad does not import, the tool stops with exit status 2
and says why.
"""
import argparse
import ast
import collections
import dis
import importlib
import inspect
import sys
import types
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
OUTPUT = REPO_ROOT / "docs" / "ops.md"
OPINFO = REPO_ROOT / "tests" / "opinfo"
TESTS = REPO_ROOT / "tests"
# scripts the differential and compatibility suites run under both frameworks: `torch` there is minigrad
BOTH_FRAMEWORKS = (TESTS / "differential" / "scenarios", TESTS / "compat" / "scripts")
NAMESPACES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.nn", "torch.linalg", "torch.special")
STATUSES = ("covered", "left out", "missing")


def _import_minigrad():
    """minigrad and its namespaces, or exit 2 with the reason (nothing can be checked)."""
    sys.path.insert(0, str(REPO_ROOT))
    try:
        import minigrad
        import minigrad.nn
        import minigrad.nn.functional  # noqa: F401
    except Exception as exc:        # any import-time failure: say it and stop
        print(f"ops_inventory: minigrad does not import ({type(exc).__name__}: {exc}); "
              "fix that first, nothing was written", file=sys.stderr)
        sys.exit(2)
    return minigrad


def _opinfo_modules():
    sys.path.insert(0, str(OPINFO))
    import opinfo_convert
    import opinfo_groups
    import opinfo_sweep
    return opinfo_convert, opinfo_groups, opinfo_sweep


# ---------------------------------------------------------------------------------------
# PyTorch's names

def _public(module_name, name, obj):
    """Whether ``name`` of a namespace is part of its API: not a module, a typing or
    builtin helper, a docs dictionary or a build flag."""
    if name.startswith("_") or isinstance(obj, types.ModuleType):
        return False
    if isinstance(obj, (dict, str, bool)) or obj is None:
        return False
    if isinstance(obj, (int, float)):
        return module_name == "torch"                   # torch.pi, torch.inf, ...
    home = getattr(obj, "__module__", None) if callable(obj) else type(obj).__module__
    if not (home or "torch").startswith("torch"):
        return False                                    # typing.Optional, collections.abc.Callable
    if module_name != "torch" and obj is getattr(importlib.import_module("torch"), name, None) \
            and isinstance(obj, type):
        return False                                    # torch.nn.functional.Tensor is torch.Tensor
    return True


def torch_names():
    """{"torch.acos": object, ...} for every public name of :data:`NAMESPACES`."""
    import torch
    names = {}
    for namespace in NAMESPACES:
        if namespace == "torch.Tensor":
            for name in dir(torch.Tensor):
                if not name.startswith("_"):
                    names[f"torch.Tensor.{name}"] = inspect.getattr_static(torch.Tensor, name)
            continue
        module = importlib.import_module(namespace)
        for name in dir(module):
            obj = getattr(module, name)
            if _public(namespace, name, obj):
                names[f"{namespace}.{name}"] = obj
    return names


def _has(minigrad, path):
    """Whether minigrad has the PyTorch name ``path`` (``torch.nn.functional.relu``)."""
    obj = minigrad
    parts = path.split(".")[1:]
    for i, part in enumerate(parts):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(["minigrad", *parts[:i + 1]]))
            except ImportError:
                return False
    return not (isinstance(obj, types.ModuleType) and i == len(parts) - 1
                and not isinstance(_torch_obj(path), types.ModuleType))


def _torch_obj(path):
    parts = path.split(".")
    obj = importlib.import_module("torch")
    for part in parts[1:]:
        obj = getattr(obj, part, None)
    return obj


# ---------------------------------------------------------------------------------------
# what the OpInfo sweep calls

def _code_uses(fn):
    """The ``torch...`` paths a ``torch.testing`` lambda reaches: attribute chains from a
    global that is a torch module, and attributes of ``torch.Tensor`` taken from a local."""
    import torch
    uses = set()
    codes = [fn.__code__]
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        chain = None
        for ins in dis.get_instructions(code):
            if ins.opname == "LOAD_GLOBAL":
                value = fn.__globals__.get(ins.argval)
                chain = [value.__name__] if isinstance(value, types.ModuleType) and \
                    value.__name__.split(".")[0] == "torch" else None
            elif ins.opname.startswith(("LOAD_FAST", "LOAD_DEREF")):   # LOAD_FAST_LOAD_FAST too (3.13)
                chain = ["torch.Tensor"]
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain is not None:
                if chain == ["torch.Tensor"] and not hasattr(torch.Tensor, ins.argval):
                    chain = None
                    continue
                chain.append(ins.argval)
                uses.add(".".join(chain))
                if chain[0] == "torch.Tensor":
                    chain = None
            else:
                chain = None
    return uses


def exercised(op, convert):
    """{variant: the PyTorch names it calls} for an OpInfo entry's function, method and
    in-place variants."""
    found = {}
    name_path = "torch." + op.name
    for kind, fn in (("function", op.op), ("method", op.method_variant), ("inplace", op.inplace_variant)):
        if fn is None:
            continue
        if kind == "function" and _torch_obj(name_path) is fn:
            found[kind] = {name_path}
        elif isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing"):
            found[kind] = _code_uses(fn)
        else:
            path = convert.public_path(getattr(fn, "func", fn))
            found[kind] = {path} if path else set()
    return found


# ---------------------------------------------------------------------------------------
# what the test files use

def _aliases(tree, both):
    """{local name: "torch..." path} a test file binds to minigrad's modules and names
    (``import minigrad as mg``, ``from minigrad.nn import functional as F``), and to
    ``torch``'s in a script run under both frameworks."""
    roots = ("minigrad", "torch") if both else ("minigrad",)
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in roots:
                    path = "torch" + alias.name[len(root):]
                    aliases[alias.asname or root] = path if alias.asname else "torch"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            root = node.module.split(".")[0]
            if root in roots:
                base = "torch" + node.module[len(root):]
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
    if "torch" in aliases.values():
        # a fixture that returns minigrad (``def T(request): ... return minigrad``) makes its
        # name one: tests take it as a parameter and run the same code on both frameworks
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(r, ast.Return) and isinstance(r.value, ast.Name)
                    and aliases.get(r.value.id) == "torch" for r in ast.walk(node)):
                aliases.setdefault(node.name, "torch")
    return aliases


def _file_uses(path, tensor_names):
    """The "torch..." paths a test file uses."""
    both = any(folder in path.parents for folder in BOTH_FRAMEWORKS)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    aliases = _aliases(tree, both)
    if not aliases:
        return set()
    uses = set()

    def chain_of(node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in aliases:
            return [aliases[node.id], *reversed(parts)]
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in aliases:
            uses.add(aliases[node.id])
        elif isinstance(node, ast.Attribute):
            chain = chain_of(node)
            if chain is not None:
                uses.update(".".join(chain[:i + 1]) for i in range(1, len(chain)))
            elif node.attr in tensor_names:
                uses.add(f"torch.Tensor.{node.attr}")
    return uses


def test_uses():
    """{"torch..." path: "tests/x.py"} for every name a test file uses (the first file in
    sorted order, so the table does not move when files are added elsewhere)."""
    import torch
    tensor_names = {name for name in dir(torch.Tensor) if not name.startswith("_")}
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        if OPINFO in path.parents:
            continue                    # the sweep's own helpers: its coverage is the OpInfo results
        for name in _file_uses(path, tensor_names):
            found.setdefault(name, path.relative_to(REPO_ROOT).as_posix())
    return found


# ---------------------------------------------------------------------------------------
# the inventory

class Inventory:
    """Everything docs/ops.md shows, computed from PyTorch, minigrad, expected.json and tests/."""

    def __init__(self):
        minigrad = _import_minigrad()
        convert, groups, sweep = _opinfo_modules()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dbs = sweep.databases()
        self.stages, self.families = sweep.STAGES, groups.FAMILIES
        expected = sweep.load_expected()
        calls = collections.defaultdict(list)      # torch path -> the entries that call it
        self.ops = []
        for op, dtype in dbs["op_db"]:
            name = sweep.entry_name(op)
            uses = exercised(op, convert)
            row = {**self._entry(name, dtype, expected["op_db"], uses.get("function", set())),
                   "family": groups.family(op)}
            self.ops.append(row)
            if row["status"] == "covered":
                unmet = row.get("missing")
                for path in set().union(*uses.values()) - {unmet}:
                    calls[path].append(name)
        self.modules = []
        for info, dtype in dbs["module_db"]:
            path = "torch." + info.name
            row = self._entry(info.name, dtype, expected["module_db"], {path})
            self.modules.append(row)
            if row["status"] == "covered":
                calls[path].append(info.name)
        uses = test_uses()
        self.names = []
        for path, obj in sorted(torch_names().items()):
            reason = None if path in groups.KEPT_THOUGH_DEPRECATED else groups.name_left_out_reason(path, obj)
            has = _has(minigrad, path)
            if reason:
                status, note = "left out", reason
            elif has and calls.get(path):
                status, note = "covered", "OpInfo " + ", ".join(f"`{n}`" for n in calls[path][:3])
            elif has and path in uses:
                status, note = "covered", f"`{uses[path]}`"
            else:
                status, note = "missing", ("in minigrad, no test calls it" if has else "not in minigrad")
            self.names.append({"name": path, "status": status, "note": note})

    def _entry(self, name, dtype, expected, primary):
        """The row of an OpInfo or ModuleInfo entry, from expected.json: status, note and the
        stage it fails at (None: passes every stage). ``dtype``: its samples' (the figures
        count the float32 ones). ``primary``: the names its function variant (the module
        class) calls; the entry is missing when one of them is, or when its samples cannot
        be converted: then nothing of it ran."""
        import torch
        runs = dtype is not None and name not in expected["left out"]
        row = {"name": name, "stage": None, "counted": runs and dtype == torch.float32,
               "other dtype": runs and dtype != torch.float32}
        if name in expected["left out"]:
            return {**row, "status": "left out", "note": expected["left out"][name]}
        failing = expected["failing"].get(name)
        where = f" ({str(dtype).split('.')[-1]} samples)" if row["other dtype"] else ""
        if failing is None:
            return {**row, "status": "covered", "note": f"passes every stage{where}"}
        stage, cause = failing
        row = {**row, "status": "covered", "stage": stage, "cause": cause,
               "note": f"fails {stage}{where}: {cause}"}
        if cause.startswith("missing: minigrad."):
            row["missing"] = "torch" + cause.split()[1][len("minigrad"):]
        if stage == self.stages[0] and (cause.startswith("cannot convert") or row.get("missing") in primary):
            row["status"] = "missing"
        return row

    def figures(self, rows):
        """How many counted entries pass each stage, and how many there are."""
        counted = [r for r in rows if r["counted"]]
        passing = {stage: sum(1 for r in counted if r["stage"] is None
                              or self.stages.index(r["stage"]) > self.stages.index(stage))
                   for stage in self.stages}
        return {"entries": len(counted), "left out": sum(r["status"] == "left out" for r in rows),
                "other dtypes": sum(r["other dtype"] for r in rows),
                "other dtypes passing": sum(r["other dtype"] and r["stage"] is None for r in rows), **passing}


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _figures_line(label, f):
    n = f["entries"]
    return (f"- **{label}**: {f['values']}/{n} entries pass values, {f['gradients']}/{n} gradients, "
            f"{f['stream']}/{n} the aten stream ({f['left out']} left out"
            + (f"; {f['other dtypes passing']}/{f['other dtypes']} entries without float32 pass every "
               "stage in their own dtype" if f["other dtypes"] else "") + ").")


def render(inv):
    ops, modules, names = inv.figures(inv.ops), inv.figures(inv.modules), inv.names
    lines = [
        "# Coverage of PyTorch's ops",
        "",
        "Generated by `python tools/ops_inventory.py` from the installed PyTorch; do not edit by hand",
        "(`tests/test_ops_inventory.py` fails when it is stale). The OpInfo figures and causes are",
        "`tests/opinfo/expected.json`, which the OpInfo sweep (`tests/opinfo`) checks against every run",
        "and rewrites with `python tests/opinfo/opinfo_sweep.py --update`.",
        "",
        "*covered*: a test calls it on minigrad (the OpInfo sweep for what PyTorch's op and module",
        "databases exercise, otherwise a real use in a test file, not a word in a comment);",
        "*left out*: a CPU engine on numpy cannot mean it, or PyTorch says it is deprecated (the",
        "reason says which; the rules are `tests/opinfo/opinfo_groups.py`); *missing*: minigrad does",
        "not have it, or no test calls it.",
        "",
        "## Summary",
        "",
        _figures_line("OpInfo (`op_db`, entries with float32 on the CPU)", ops),
        _figures_line("ModuleInfo (`module_db`)", modules),
        "",
        "| namespace | names | covered | left out | missing |",
        "|---|---|---|---|---|",
    ]
    by_namespace = collections.defaultdict(collections.Counter)
    for row in names:
        by_namespace[_namespace(row["name"])][row["status"]] += 1
    entries = "OpInfo and ModuleInfo entries"
    by_namespace[entries] = collections.Counter(r["status"] for r in inv.ops + inv.modules)
    for namespace in (*(f"`{n}`" for n in NAMESPACES), entries):
        c = by_namespace[namespace.strip("`")]
        lines.append(f"| {namespace} | {sum(c.values())} | " + " | ".join(str(c[s]) for s in STATUSES) + " |")
    lines.append("")

    lines += ["## Left-out groups", ""]
    reasons = collections.defaultdict(lambda: ([], 0))
    for row in inv.ops + inv.modules:
        if row["status"] == "left out":
            key = row["note"].split(":", 1)[0]
            reasons[key][0].append(row["name"])
    name_counts = collections.Counter(r["note"].split(":", 1)[0] for r in names if r["status"] == "left out")
    for key in sorted(set(reasons) | set(name_counts)):
        entries = reasons[key][0]
        text = f"- **{key}** ({len(entries)} OpInfo/ModuleInfo entries, {name_counts[key]} names)"
        lines.append(text + (": " + ", ".join(f"`{e}`" for e in sorted(entries)) if entries else ""))
    lines += [""]

    for title, rows, family in (("Failing OpInfo entries", inv.ops, True),
                                ("Failing ModuleInfo entries", inv.modules, False)):
        failing = [r for r in rows if r["stage"] is not None]
        lines += [f"## {title}", "", f"{len(failing)} entries; the first stage each fails at, and why.", ""]
        lines += ["| entry | family | stage | cause |" if family else "| entry | stage | cause |",
                  "|---|---|---|---|" if family else "|---|---|---|"]
        for r in sorted(failing, key=lambda r: (inv.families.index(r.get("family", "modules")), r["name"])):
            cells = [f"`{r['name']}`"] + ([r["family"]] if family else []) + [r["stage"], _cell(r["cause"])]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")

    lines += ["## OpInfo and ModuleInfo entries", "", "| entry | status | note |", "|---|---|---|"]
    for r in inv.ops + inv.modules:
        lines.append(f"| `{r['name']}` | {r['status']} | {_cell(r['note'])} |")
    lines.append("")
    for namespace in NAMESPACES:
        lines += [f"## `{namespace}`", "", "| name | status | test or reason |", "|---|---|---|"]
        for r in names:
            if _namespace(r["name"]) == namespace:
                lines.append(f"| `{r['name']}` | {r['status']} | {_cell(r['note'])} |")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _namespace(path):
    for namespace in sorted(NAMESPACES, key=len, reverse=True):
        if path.startswith(namespace + ".") and "." not in path[len(namespace) + 1:]:
            return namespace
    return "torch"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/ops.md is stale")
    args = parser.parse_args(argv)
    text = render(Inventory())
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(REPO_ROOT)} is stale: run python tools/ops_inventory.py")
            return 1
        return 0
    from minigrad.utils._cli import write_atomically
    write_atomically(OUTPUT, text)
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
