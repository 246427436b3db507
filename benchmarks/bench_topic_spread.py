"""The per-topic spread tier (optimal.topic_spread) against the plain flow optimum, same process.

    python benchmarks/bench_topic_spread.py [--members N] [--topics T] [--partitions P]

A balanced previous generation of T topics x P partitions on N members (random subscriptions), a
tenth of the members replaced: the spread tier's flow (balance, then spread, then stickiness) and the
plain flow (balance, then stickiness, ``optimal.solve``): wall times and their ratio, the worst
topic's spread (max - min partitions per subscriber) under each; then ``solve --topic-spread`` on the
scenario file end to end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from assignment_oracle.compare.scenarios.families import generate
from assignment_oracle.optimal import solve as solve_counts
from assignment_oracle.optimal import topic_spread
from assignment_oracle.problem.metrics import per_topic_spread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=50)
    args = parser.parse_args()
    problem = generate(
        "random-subsets",
        3,
        members=args.members,
        topics=args.topics,
        partitions=args.partitions,
        subscribe=0.6,
        previous="balanced",
        churn=max(1, args.members // 10),
    )
    started = time.perf_counter()
    plain = solve_counts(problem)
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    spread = topic_spread.solve(problem)
    seconds = time.perf_counter() - started
    worst = max(per_topic_spread(problem, plain.assignment).values())
    print(f"{len(problem.members)} members, {problem.total_partitions} partitions")
    print(f"plain flow: {baseline:.3f} s, worst topic spread {worst}, kept {plain.retained}")
    print(
        f"spread tier: {seconds:.3f} s ({seconds / baseline:.1f}x), worst topic spread "
        f"{max(per_topic_spread(problem, spread.assignment).values())}, kept {spread.retained}, "
        f"same sorted loads: {spread.sorted_loads == tuple(plain.sorted_loads)}"
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
                "--topic-spread",
                "-o",
                str(Path(folder) / "out.json"),
            ],
            capture_output=True,
            text=True,
        )
        cli = time.perf_counter() - started
    print(
        f"CLI end to end (solve FILE --topic-spread): exit {run.returncode} in {cli:.2f} s "
        f"({cli / seconds:.2f}x the library call)"
    )


if __name__ == "__main__":
    main()
