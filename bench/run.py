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
import os
import sys

# glibc hands a freed block of more than 128 KiB back to the OS and maps fresh pages
# for the next one, and it moves that limit as the process runs. A step that allocates
# megabytes (the CNN's im2col, the numpy floor's windows) then pays thousands of page
# faults per step or none, depending on what ran before: the numpy floor of `cnn`
# measured 5.8 ms with 1,900 faults per step and 3.2 ms with none, in the same code.
# Fixed thresholds keep every side's memory in the process, so each workload is timed
# in that steady state, whatever ran before it. (Other C libraries ignore the variables.)
_ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": str(64 << 20), "MALLOC_TRIM_THRESHOLD_": str(128 << 20)}


def _restart_with_a_steady_allocator():
    """Re-run this command with :data:`_ALLOCATOR` set (glibc reads it at start-up), unless
    it is set already: a variable given on the command line wins."""
    if all(name in os.environ for name in _ALLOCATOR):
        return
    env = {**_ALLOCATOR, **os.environ}
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


if __name__ == "__main__":
    _restart_with_a_steady_allocator()

from profiling import budget, profile, where_time_goes  # noqa: E402 (after the restart above)
from report import derived_table, header, memory_table, results_table, run_quietly  # noqa: E402 (after the restart above)
from timing import check_agreement, time_interleaved  # noqa: E402 (after the restart above)
from workloads import BY_NAME, MEMORY, WORKLOADS, torch  # noqa: E402 (after the restart above)

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
