"""Write ``docs/coverage.md``: every hook-related PyTorch API and whether minigrad covers it.

    python tools/coverage_inventory.py            # rewrite docs/coverage.md
    python tools/coverage_inventory.py --check    # exit 1 if docs/coverage.md is stale

The names come from the installed PyTorch (2.13): the public names (``__all__``) of
``torch.autograd`` and its modules ``graph``, ``function``, ``functional``,
``anomaly_mode``, ``grad_mode`` and ``forward_ad``, of ``torch.utils.hooks`` and
``torch.utils.checkpoint``; ``TorchDispatchMode`` and ``TorchFunctionMode``; the hook and
state-dict methods of ``nn.Module`` and ``optim.Optimizer``; the ``register_*`` functions of
``torch.nn.modules.module`` and ``torch.optim.optimizer``. Each name gets a status:

- **covered**: minigrad has it (the same dotted path under ``minigrad``) and a differential
  test uses it (the name appears in a script of ``tests/differential/scenarios`` or
  ``tests/compat/scripts``, which run under both frameworks); the table names the first
  such script;
- **left out**: docs/differences.md explains why, in its section "PyTorch APIs minigrad
  leaves out" (a bullet naming it in backticks, or a ``prefix.*`` pattern, then the reason);
- **untested**: minigrad has it, but no differential script uses it;
- **missing**: minigrad does not have it.

``tests/test_coverage_inventory.py`` fails when the file is stale and when a name is
untested or missing without being in its list of pending names. The output is sorted, so
it depends only on PyTorch's names, minigrad and the repository's files.
"""
import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
OUTPUT = REPO_ROOT / "docs" / "coverage.md"
DIFFERENCES = REPO_ROOT / "docs" / "differences.md"
LEFT_OUT_SECTION = "## PyTorch APIs minigrad leaves out"
TEST_SCRIPTS = (REPO_ROOT / "tests" / "differential" / "scenarios",
                REPO_ROOT / "tests" / "compat" / "scripts")

MODULES = ("torch.autograd", "torch.autograd.graph", "torch.autograd.function",
           "torch.autograd.functional", "torch.autograd.anomaly_mode", "torch.autograd.grad_mode",
           "torch.autograd.forward_ad", "torch.utils.hooks", "torch.utils.checkpoint")
CLASSES = ("torch.utils._python_dispatch.TorchDispatchMode", "torch.overrides.TorchFunctionMode")
METHODS_OF = ("torch.nn.Module", "torch.optim.Optimizer")
REGISTER_FUNCTIONS_OF = ("torch.nn.modules.module", "torch.optim.optimizer")
STATUSES = ("covered", "left out", "untested", "missing")


def _resolve(dotted):
    """The object at a dotted path (``torch.nn.Module.state_dict``), or None: the longest
    importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


def _is_hook_or_state_method(name):
    # private helpers (_get_backward_hooks, _maybe_warn_...) are not API; _register_* are
    return ("hook" in name or "state_dict" in name) and not name.startswith(("__", "_get_", "_maybe_"))


def torch_names():
    """The qualified PyTorch names of the inventory, sorted."""
    names = set(CLASSES)
    for module in MODULES:
        names.update(f"{module}.{name}" for name in importlib.import_module(module).__all__)
    for cls in METHODS_OF:
        names.update(f"{cls}.{name}" for name, value in inspect.getmembers(_resolve(cls))
                     if callable(value) and _is_hook_or_state_method(name))
    for module in REGISTER_FUNCTIONS_OF:
        names.update(f"{module}.{name}" for name in vars(importlib.import_module(module))
                     if name.startswith("register_"))
    return sorted(names)


def left_out():
    """{name or ``prefix.*`` pattern: reason} from docs/differences.md's section."""
    text = DIFFERENCES.read_text()
    if LEFT_OUT_SECTION not in text:
        return {}
    section = text.split(LEFT_OUT_SECTION, 1)[1].split("\n## ", 1)[0]
    bullets = re.split(r"\n- ", "\n" + section.strip())
    reasons = {}
    for bullet in bullets:
        head, sep, reason = " ".join(bullet.split()).partition(": ")
        if not sep:
            continue
        for name in re.findall(r"`(torch\.[\w.*]+)`", head):
            reasons[name] = reason
    return reasons


def _reason_for(name, reasons):
    if name in reasons:
        return reasons[name]
    for pattern, reason in reasons.items():
        if pattern.endswith(".*") and name.startswith(pattern[:-1]):
            return reason
    return None


def _scripts():
    return sorted(path for folder in TEST_SCRIPTS for path in folder.glob("*.py"))


def _users(name, scripts):
    """The scripts (sorted) that mention the name's last component as a word."""
    word = re.compile(rf"\b{re.escape(name.rsplit('.', 1)[1])}\b")
    return [path for path, text in scripts if word.search(text)]


def inventory():
    """[(name, status, note)] for every name, sorted by name."""
    scripts = [(path, path.read_text()) for path in _scripts()]
    reasons = left_out()
    rows = []
    for name in torch_names():
        reason = _reason_for(name, reasons)
        implemented = _resolve("minigrad" + name[len("torch"):]) is not None
        users = _users(name, scripts) if implemented else []
        if reason is not None:
            rows.append((name, "left out", reason))
        elif users:     # the first script only: a new script elsewhere leaves the table as it is
            rows.append((name, "covered", f"`{users[0].relative_to(REPO_ROOT).as_posix()}`"))
        elif implemented:
            rows.append((name, "untested", "no differential script uses it"))
        else:
            rows.append((name, "missing", "not in minigrad"))
    return rows


def render(rows):
    counts = {status: sum(1 for _, s, _ in rows if s == status) for status in STATUSES}
    lines = [
        "# Coverage of PyTorch's hook APIs",
        "",
        "Generated by `python tools/coverage_inventory.py` from PyTorch's own lists of names; do not",
        "edit by hand (`tests/test_coverage_inventory.py` fails when it is stale). *covered*: minigrad",
        "has it and a differential script (`tests/differential/scenarios`, `tests/compat/scripts`)",
        "uses it; *left out*: the reason from [differences.md](differences.md); *untested*: minigrad",
        "has it, no differential script uses it; *missing*: not in minigrad yet.",
        "",
        f"{len(rows)} names: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + ".",
        "",
        "| name | status | test or reason |",
        "|---|---|---|",
    ]
    lines += [f"| `{name}` | {status} | {note.replace('|', chr(92) + '|')} |" for name, status, note in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/coverage.md is stale")
    args = parser.parse_args(argv)
    text = render(inventory())
    if args.check:
        current = OUTPUT.read_text() if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(REPO_ROOT)} is stale: run python tools/coverage_inventory.py")
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
