"""minigrad vs PyTorch CPU vs hand-written numpy, side by side in one process.

    python bench/run.py                  # every workload, full rounds (~1-2 min)
    python bench/run.py --quick          # fewer, shorter rounds (a smoke run)
    python bench/run.py --only chain300,mlp_relu
    python bench/run.py --profile chain300   # cProfile the minigrad side, top 25 by tottime
    python bench/run.py --list

Every workload is built once per framework from the same initial values (and checked to
compute the same loss/gradient before it is timed). Timing interleaves the frameworks
round-robin (the order rotates every round), so a burst of load from other jobs on the
machine hits all of them alike; each sample is the mean of enough calls to last
``--sample`` seconds, and the table reports the median and the min over the rounds.

Ratios are minigrad / other: below 1.0 means minigrad is faster. This file only
measures; it asserts nothing about speed (no timing assertions anywhere in tests).
The parts: workloads.py (what is timed), timing.py (how), report.py (the tables),
profiling.py (--profile, --where, --budget). See bench/README.md for the goals.
"""
import argparse
import sys

from profiling import budget, profile, where_time_goes
from report import derived_table, header, memory_table, results_table, run_quietly
from timing import check_agreement, time_interleaved
from workloads import BY_NAME, MEMORY, WORKLOADS, torch

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="5 rounds of ~0.02 s samples")
    p.add_argument("--only", help="comma-separated workload names (see --list)")
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 11, quick 5)")
    p.add_argument("--sample", type=float, help="seconds per sample (default 0.1, quick 0.02)")
    p.add_argument("--profile", metavar="NAME", help="cProfile the minigrad side of NAME")
    p.add_argument("--budget", action="store_true",
                   help="per-node CPU budget of forward and backward on the 300-op chain")
    p.add_argument("--where", metavar="NAME",
                   help="split one minigrad step of NAME: outside backward, each node type, "
                        "the engine, page faults")
    p.add_argument("--list", action="store_true", help="list workloads and exit")
    args = p.parse_args(argv)

    if args.list:
        for w in WORKLOADS:
            print(f"{w.name:24} {w.title}")
        print(f"{MEMORY:24} peak traced memory: checkpointing, optimizer in backward")
        return
    if torch is not None:
        torch.set_num_threads(1)
    limiter = threadpoolctl.threadpool_limits(1, user_api="blas") if threadpoolctl else None
    rounds = args.rounds or (5 if args.quick else 11)
    sample = args.sample or (0.02 if args.quick else 0.1)

    if args.profile:
        profile(args.profile, max(sample * 10, 1.0))
        return
    if args.budget:
        budget()
        return
    if args.where:
        where_time_goes(args.where)
        return

    names = args.only.split(",") if args.only else [w.name for w in WORKLOADS] + [MEMORY]
    unknown = [n for n in names if n not in BY_NAME and n != MEMORY]
    if unknown:
        sys.exit(f"unknown workload(s) {unknown}; --list shows them")

    print("## minigrad benchmark\n")
    for line in header():
        print(f"- {line}")
    print(f"- timing: {rounds} interleaved rounds, ~{sample:g} s per sample, order rotated "
          f"every round; median (min) per call\n", flush=True)

    results = []
    for name in names:
        if name == MEMORY:
            continue
        w = BY_NAME[name]
        sides = w.build()
        note = check_agreement(w, sides)
        sides = {k: v for k, v in sides.items() if not k.startswith("_")}
        times = time_interleaved(sides, rounds, sample)
        results.append((w, times, note))
        print(f"  measured {name}", file=sys.stderr, flush=True)
    if results:
        print(results_table(results))
        print(derived_table(results))
    if MEMORY in names:
        print()
        print(memory_table(batches=(64,) if args.quick else (64, 512)))
    print(f"\n- load at the end: {run_quietly(['uptime']).split('load average:')[-1].strip()}")
    if limiter is not None:
        limiter.restore_original_limits()


if __name__ == "__main__":
    main()
