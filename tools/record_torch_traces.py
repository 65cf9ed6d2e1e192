#!/usr/bin/env python3
"""Record PyTorch 2.13's trace of every spec scenario as ``spec/torch_traces/<name>.json``.

The spec notebooks run each scenario with minigrad and print PyTorch's trace next to it,
read from these files, so a notebook is a complete specification without torch
installed. ``tests/test_spec_crosscheck.py`` runs the scenarios under the installed
torch again and fails if a recording is stale.

The scenarios run in one process, in registry order (as the cross-check's first pass
does). A recording is deterministic: the same scenario and torch version give the same
bytes (``{"scenario", "torch", "trace"}``, keys sorted, one line per trace line).

Usage:
    python tools/record_torch_traces.py                  # (re)write every recording
    python tools/record_torch_traces.py c25_leaves_...   # only the scenarios named
    python tools/record_torch_traces.py --check          # exit 1 if one is stale or missing
Needs torch==2.13.* (pip install -e ".[torch]").
"""
from __future__ import annotations

import argparse
import json
import sys

from make_spec_notebooks import load_registry, report   # tools/ is on sys.path when run

TORCH_VERSION = "2.13"


def recording_text(name: str, trace: list[str], torch_version: str) -> str:
    """The bytes of one recording (deterministic)."""
    record = {"scenario": name, "torch": torch_version, "trace": list(trace)}
    return json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="scenarios to record (default: all)")
    ap.add_argument("--check", action="store_true", help="report stale recordings, write nothing")
    args = ap.parse_args(argv)

    import torch
    version = torch.__version__.split("+")[0]
    if not version.startswith(TORCH_VERSION + "."):
        print(f"the spec records PyTorch {TORCH_VERSION}; torch {torch.__version__} is installed "
              f"(pip install -e '.[torch]')", file=sys.stderr)
        return 2
    scenarios = load_registry()
    unknown = sorted(set(args.names) - set(scenarios.NAMES))
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}", file=sys.stderr)
        return 2

    stale = []
    for name, mod in scenarios.all_scenarios():      # all of them: a scenario may leak into the next
        trace = mod.run(torch)
        if args.names and name not in args.names:
            continue
        path = scenarios.torch_trace_path(name)
        text = recording_text(name, trace, version)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    known = {scenarios.torch_trace_path(name).name for name in scenarios.NAMES}
    orphans = [p for p in sorted(scenarios.TORCH_TRACES.glob("*.json")) if p.name not in known]

    return report(stale, orphans, args.check, "python tools/record_torch_traces.py")


if __name__ == "__main__":
    sys.exit(main())
