"""Co-partitioned optimum (optimal.join_groups) on issue 17's target cases, wall time against the target.

    python benchmarks/bench_join_groups.py [--time-limit S]

* one group of 4 topics x 1,000 partitions, 100 members, random previous owners (target 10 s);
* 2 groups + 2 free topics, random subscriptions and owners, 3,000 partitions (target 30 s).

Prints, per case: the library call's status, wall time and ratio to the target (below 1.0 meets
it), the proof stages; the CLI end to end on the scenario file (``assignment-oracle solve``, what
users run: parse, solve, write) and its ratio to the library call; and, as the baseline run in the
same process, the optimum *without* co-partitioning (one min-cost flow, ``optimal.solve``) and the
co-partitioned solve's ratio to it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from assignment_oracle.optimal import Request, solve
from assignment_oracle.problem import Problem


def one_group(seed: int = 1) -> Problem:
    rng = random.Random(seed)
    topics = {f"t{i}": 1000 for i in range(4)}
    members = [f"m{j:03d}" for j in range(100)]
    owned: dict[str, dict[str, list[int]]] = {m: {} for m in members}
    for t in topics:
        for p in range(1000):
            owned[rng.choice(members)].setdefault(t, []).append(p)
    return Problem.from_mapping(
        {
            "topics": topics,
            "join_groups": [list(topics)],
            "members": {m: {"topics": list(topics), "owned": owned[m], "generation": 1} for m in members},
        }
    )


def mixed(seed: int = 2) -> Problem:
    """2 groups (impressions/clicks, orders/payments/refunds) + 2 free topics, 3,000 partitions."""
    rng = random.Random(seed)
    topics = {
        "impressions": 500,
        "clicks": 400,
        "orders": 300,
        "payments": 300,
        "refunds": 200,
        "audit": 650,
        "metrics": 650,
    }
    groups = [["clicks", "impressions"], ["orders", "payments", "refunds"]]
    members = [f"m{j:03d}" for j in range(60)]
    subscriptions = {}
    for m in members:
        chosen = set()
        for g in groups:
            if rng.random() < 0.7:
                chosen |= set(g)
        chosen |= {t for t in ("audit", "metrics") if rng.random() < 0.6}
        subscriptions[m] = sorted(chosen or set(groups[0]))
    owned: dict[str, dict[str, list[int]]] = {m: {} for m in members}
    for t, n in topics.items():
        holders = [m for m in members if t in subscriptions[m]]
        for p in range(n):
            if holders:
                owned[rng.choice(holders)].setdefault(t, []).append(p)
    return Problem.from_mapping(
        {
            "topics": topics,
            "join_groups": groups,
            "members": {m: {"topics": subscriptions[m], "owned": owned[m], "generation": 1} for m in members},
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    for name, build, target in (
        ("one group 4 x 1,000, 100 members", one_group, 10.0),
        ("2 groups + 2 free topics, 3,000 partitions", mixed, 30.0),
    ):
        problem = build()
        started = time.perf_counter()
        solution = solve(problem, Request(), time_limit=args.time_limit)
        seconds = time.perf_counter() - started
        print(
            f"{name}: {solution.status} in {seconds:.2f} s (target {target:g} s, ratio {seconds / target:.3f}); "
            f"largest load {int(solution.measures.loads.max(initial=0))}, kept {solution.measures.kept}"
        )
        for stage in solution.stages:
            print(
                f"    {stage['stage']}: {stage.get('value') if not isinstance(stage.get('value'), dict) else 'see above'}"
                f" proven={stage.get('proven')}"
            )
        started = time.perf_counter()
        solve(dataclasses.replace(problem, join_groups=()))
        plain = time.perf_counter() - started
        print(
            f"    baseline, the optimum without co-partitioning (one flow): {plain:.2f} s; "
            f"co-partitioned / baseline {seconds / plain:.1f}x"
        )
        with tempfile.TemporaryDirectory() as folder:
            scenario = Path(folder) / "scenario.json"
            scenario.write_text(json.dumps(problem.to_mapping()))
            started = time.perf_counter()
            run = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "assignment_oracle.cli",
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
            status = json.loads((Path(folder) / "out.json").read_text())["status"] if run.returncode in (0, 1) else "?"
        print(
            f"    CLI end to end (solve FILE -o OUT): {status} in {cli:.2f} s (exit {run.returncode}); "
            f"CLI / library {cli / seconds:.2f}"
        )


if __name__ == "__main__":
    main()
