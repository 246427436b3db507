"""Weighted partitions (optimal.weighted) on issue 17's target case, against the target and a baseline.

    python benchmarks/bench_weighted.py [--time-limit S] [--members N] [--topics T] [--partitions P]

100 members, 20 topics x 100 partitions (2,000 partitions), each member on each topic with probability
0.5, each partition weighing a log-normal consumer lag (median 1,000, shape 1.5), random previous
owners (the ``weighted`` scenario family).  Target: optimal, or the largest weighted load within 1% of
its proven lower bound, in 30 s.

Prints, for the library call and for the CLI end to end on the scenario file (``assignment-oracle
solve``, what users run): status, wall time, the largest load, its proven bound and the gap between
them; the stages; and, as the baseline run in the same process, the partition-count optimum (one
min-cost flow, ``optimal.solve``, which ignores weights): its wall time, the weighted solve's ratio to
it, and how much heavier that optimum's busiest member is on weighted loads.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from assignment_oracle.compare.scenarios.families import generate
from assignment_oracle.optimal import Request, measure, solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--time-limit",
        type=float,
        default=20.0,
        help="the solver's limit (default 20 s: building the model and the last stage are on top; the target is 30 s)",
    )
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument(
        "--lag-sigma",
        type=float,
        default=1.5,
        help="log-normal shape of the lags: 1.5 has a few partitions heavier than a member's share, "
        "0.5 none (then the largest load is a packing problem)",
    )
    args = parser.parse_args()
    problem = generate(
        "weighted",
        17,
        members=args.members,
        topics=args.topics,
        partitions=args.partitions,
        subscribe=0.5,
        previous="random",
        lag_sigma=args.lag_sigma,
    )
    print(
        f"{len(problem.members)} members, {problem.total_partitions} partitions, "
        f"total weight {int(problem.weight_array.sum()):,}, heaviest {int(problem.weight_array.max()):,}"
    )
    started = time.perf_counter()
    solution = solve(problem, Request(), time_limit=args.time_limit)
    seconds = time.perf_counter() - started
    largest = int(solution.measures.loads.max(initial=0))
    stage = next((s for s in solution.stages if s["stage"] == "largest load"), None)
    largest_bound = largest if stage is None or stage["proven"] else int(stage["bound"] or 0)
    gap = (largest - largest_bound) / max(largest_bound, 1)
    met = solution.status == "OPTIMAL" or (gap <= 0.01 and seconds <= 30.0)
    print(
        f"library: {solution.status} in {seconds:.2f} s (target 30 s, ratio {seconds / 30.0:.3f}); largest load "
        f"{largest:,}, proven bound {largest_bound:,}, gap {100 * gap:.3f}% "
        f"({'meets' if met else 'misses'} the target: optimal or within 1% in 30 s); kept {solution.retained}"
    )
    for stage in solution.stages:
        print(f"    {stage['stage']}: {stage.get('value')} proven={stage.get('proven')} bound={stage.get('bound')}")
    started = time.perf_counter()
    counts = solve(dataclasses.replace(problem, weights=()))
    baseline = time.perf_counter() - started
    heaviest = int(measure(problem, counts.assignment).loads.max(initial=0))
    print(
        f"baseline, the partition-count optimum (one flow): {baseline:.2f} s; weighted / baseline "
        f"{seconds / baseline:.1f}x; its busiest member carries {heaviest:,} "
        f"({heaviest / max(largest, 1):.2f}x the weighted solve's)"
    )
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "scenario.json"
        scenario.write_text(json.dumps(problem.to_mapping()))
        started = time.perf_counter()
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "assignment_oracle",
                "solve",
                str(scenario),
                "-o",
                str(Path(folder) / "out.json"),
                "--time-limit",
                str(args.time_limit),
            ],
            capture_output=True,
            text=True,
        )
        cli = time.perf_counter() - started
        document = json.loads((Path(folder) / "out.json").read_text()) if run.returncode in (0, 1) else {}
    print(
        f"CLI end to end (solve FILE -o OUT): {document.get('status', '?')} in {cli:.2f} s (exit {run.returncode}), "
        f"largest {max(document.get('weighted_loads', {0: 0}).values()):,}; "
        f"CLI / library {cli / seconds:.2f}"
    )


if __name__ == "__main__":
    main()
