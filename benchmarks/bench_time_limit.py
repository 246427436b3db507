"""``--time-limit`` bounds the whole command (issue 43, finding 6): weights + racks + a budget of moves.

    python benchmarks/bench_time_limit.py [--limit S]

For 4,000, 12,000 and 20,000 partitions (10 topics, 100 members on three racks, lag weights, a
budget of 400 moves), ``assignment-oracle solve FILE --max-moves 400 --time-limit S -o OUT`` end to
end, against the baseline run in the same process: the same command on a one-partition group (the
command's fixed cost: Python, the imports, reading and writing).  Target: wall time at most the
limit + 0.5 s + the baseline.  Printed: wall, status, the overshoot past limit + baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ORACLE = str(Path(sys.executable).with_name("assignment-oracle"))


def scenario(partitions: int, seed: int = 2) -> dict:
    rng = np.random.default_rng(seed)
    racks = ["r0", "r1", "r2"]
    per = partitions // 10
    topics = {
        f"t{i}": {
            "partitions": per,
            "racks": [sorted(rng.choice(racks, 2, replace=False).tolist()) for _ in range(per)],
        }
        for i in range(10)
    }
    owners = {t: rng.integers(0, 104, per) for t in topics}
    return {
        "topics": topics,
        "weights": {t: [int(x) for x in np.minimum(rng.pareto(1.5, per) * 100 + 1, 10**6)] for t in topics},
        "members": {
            f"m{i:03d}": {
                "topics": sorted(topics),
                "rack": racks[i % 3],
                "owned": {t: [int(p) for p in np.flatnonzero(owners[t] == i)] for t in topics},
            }
            for i in range(100)
        },
    }


def run(path: Path, limit: float, folder: Path) -> tuple[float, str]:
    out = folder / "answer.json"
    started = time.perf_counter()
    subprocess.run(
        [ORACLE, "solve", str(path), "--max-moves", "400", "--time-limit", str(limit), "-o", str(out)],
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - started
    return wall, json.loads(out.read_text())["status"] if out.exists() else "no answer"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        tiny = folder / "tiny.json"
        tiny.write_text(json.dumps({"topics": {"t": 1}, "weights": {"t": [3]}, "members": {"m": {"topics": ["t"]}}}))
        baseline = min(run(tiny, args.limit, folder)[0] for _ in range(3))
        print(f"baseline (one partition, the command's fixed cost): {baseline:.2f} s")
        for partitions in (4_000, 12_000, 20_000):
            path = folder / f"w{partitions}.json"
            path.write_text(json.dumps(scenario(partitions)))
            wall, status = run(path, args.limit, folder)
            over = wall - args.limit - baseline
            print(
                f"{partitions:>6} partitions: {status} in {wall:.2f} s with --time-limit {args.limit:g}; "
                f"past limit + baseline by {over:+.2f} s ({'meets' if over <= 0.5 else 'misses'} the 0.5 s target); "
                f"ratio to the baseline {wall / baseline:.1f}x"
            )
    print(f"machine load (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
