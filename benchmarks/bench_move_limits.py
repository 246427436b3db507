"""Move limits (``optimal.solve`` with ``Request(max_moves=K)``) on a sizeable rebalance, against the unlimited flow optimum.

    python benchmarks/bench_move_limits.py [--members N] [--partitions P] [--time-limit S]

60 members on a balanced previous generation of 20 topics (3,000 partitions by default, random
subscriptions), 6 of them replaced by new members (churn): the unlimited optimum moves what the
leavers held and evens out the rest; budgets of 0, a quarter, half and all of that are solved.
Prints, per budget: status, wall time, the sorted counts' spread (max - min) and the moves; and, as
the baseline run in the same process, the flow optimum without limits (``optimal.solve``) and each
solve's ratio to it; then the CLI end to end (``solve --max-moves``) on the scenario file.
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
from assignment_oracle.optimal import Request, solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=60)
    parser.add_argument("--partitions", type=int, default=150, help="per topic (20 topics)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    problem = generate(
        "random-subsets",
        5,
        members=args.members,
        topics=20,
        partitions=args.partitions,
        subscribe=0.5,
        previous="balanced",
        churn=max(1, args.members // 10),
    )
    started = time.perf_counter()
    flow = solve(problem)
    baseline = time.perf_counter() - started
    unlimited = flow.owned - flow.retained
    print(
        f"{len(problem.members)} members, {problem.total_partitions} partitions; the flow optimum: "
        f"{baseline:.3f} s, spread {max(flow.sorted_loads) - min(flow.sorted_loads)}, {unlimited} moves"
    )
    for budget in sorted({0, unlimited // 4, unlimited // 2, unlimited}):
        started = time.perf_counter()
        solution = solve(problem, Request(max_moves=budget), time_limit=args.time_limit)
        seconds = time.perf_counter() - started
        loads = solution.sorted_loads
        print(
            f"  at most {budget} moves: {solution.status} in {seconds:.2f} s ({seconds / baseline:.0f}x the flow), "
            f"spread {loads[0] - loads[-1] if loads else 0}, largest {loads[0] if loads else 0}, "
            f"{int(solution.measures.moved_from.sum())} moves, {len(solution.stages)} stages"
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
                "--max-moves",
                str(unlimited // 2),
                "-o",
                str(Path(folder) / "out.json"),
            ],
            capture_output=True,
            text=True,
        )
        cli = time.perf_counter() - started
        status = json.loads((Path(folder) / "out.json").read_text())["status"] if run.returncode in (0, 1) else "?"
    print(f"CLI end to end (solve FILE --max-moves {unlimited // 2}): {status} in {cli:.2f} s (exit {run.returncode})")


if __name__ == "__main__":
    main()
