"""``assignment-oracle compare`` with every built-in assignor, end to end, on Kafka's 1,000,000-partition stress case.

The scenario is the one :mod:`benchmarks.bench_cli` builds (``kafka_stress_scenario``: 2,000 members subscribe to
500 topics of 2,000 partitions; member 0 has left, everyone else claims its previous round-robin share at
generation 12).  ``--partitions N --members M`` scales it for quick runs: still 500 topics (fewer if ``N`` is
small), ``N // 500`` partitions each, ``M`` members of which the first has left; the round-robin shares are
those of ``M`` members over the topics in order (at the default size, partition ``m`` of every topic to member
``m``: the same file as ``bench_cli``'s).

``compare FILE`` runs as a user runs it -- a fresh ``assignment-oracle`` process (the venv's console script),
output discarded -- timed from start to exit with its peak resident memory (``wait4`` from a small launcher,
as in ``bench_cli``: a child forked from this process would inherit this process's high-water mark).  The
baseline, in the same run, is reading the scenario with the standard library's ``json`` and writing a JSON
document of the same size.

Target (1M partitions): <= 30 s and <= 1.5 GiB peak RSS.

    python benchmarks/bench_compare.py                                  # the 1M case
    python benchmarks/bench_compare.py --partitions 100000 --members 200 # quick
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GIB = 1024**3
CLI = str(Path(sys.executable).with_name("assignment-oracle"))
TIME_TARGET, RSS_TARGET = 30.0, 1.5 * GIB

#: Runs its arguments as a command; prints seconds, peak RSS in bytes and the exit code.
#: (The command's standard error goes to the launcher's, which ``run_cli`` reads once both have exited.)
LAUNCHER = (
    "import os, subprocess, sys, time\n"
    "started = time.perf_counter()\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "print(time.perf_counter() - started, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status))"
)


def stress_scenario(partitions: int = 1_000_000, members: int = 2_000) -> dict:
    """Kafka's stress case scaled to about ``partitions`` partitions and ``members`` members (module docstring)."""
    if partitions == 1_000_000 and members == 2_000:
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_cli import kafka_stress_scenario  # the very generator bench_cli uses

        return kafka_stress_scenario()
    count = min(500, partitions)
    per_topic = max(1, partitions // count)
    topics = {f"topic-{t:03d}": per_topic for t in range(count)}
    names = sorted(topics)
    owned: dict[int, dict[str, list[int]]] = {}
    i = 0
    for name in names:
        for p in range(per_topic):
            owned.setdefault(i % members, {}).setdefault(name, []).append(p)
            i += 1
    group = {
        f"member-{m:04d}": {"topics": names, "owned": owned.get(m, {}), "generation": 12} for m in range(1, members)
    }
    return {"topics": topics, "members": group}


def run_cli(*argv: str) -> tuple[float, int]:
    """Seconds from start to exit and peak RSS in bytes of one CLI process; raises if it failed."""
    launcher = subprocess.run([sys.executable, "-c", LAUNCHER, CLI, *argv], capture_output=True, text=True, check=False)
    try:
        seconds, rss, code = launcher.stdout.split()
    except ValueError:
        raise SystemExit(f"{' '.join(argv)}: launcher failed: {launcher.stderr.strip()}") from None
    if int(code) not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {code}: {launcher.stderr.strip()[-2000:]}")
    return float(seconds), int(rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=1_000_000, help="about this many partitions (default 1M)")
    parser.add_argument("--members", type=int, default=2_000, help="members before one leaves (default 2,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of compare; the fastest counts (default 1)")
    parser.add_argument("--workdir", help="where the scenario goes (default: a temporary folder, removed)")
    args = parser.parse_args()
    if args.partitions < 1 or args.members < 2:
        parser.error("--partitions must be >= 1 and --members >= 2")
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-compare-"))
    workdir.mkdir(parents=True, exist_ok=True)
    scenario = workdir / "scenario.json"
    document = stress_scenario(args.partitions, args.members)
    scenario.write_text(json.dumps(document))
    total = sum(document["topics"].values())
    size = scenario.stat().st_size
    print(f"scenario: {total:,} partitions, {len(document['members']):,} members, {size / 1e6:.1f} MB ({scenario})")
    del document

    # The baseline: parse the scenario and write a JSON document of the same size (same run, same machine).
    started = time.perf_counter()
    parsed = json.loads(scenario.read_bytes())
    (workdir / "baseline.json").write_text(json.dumps(parsed))
    baseline = time.perf_counter() - started
    del parsed
    print(f"baseline (read + write {size / 1e6:.1f} MB of JSON, in process): {baseline:.2f} s")

    runs = [run_cli("compare", str(scenario)) for _ in range(max(1, args.repeat))]
    seconds, rss = min(r[0] for r in runs), max(r[1] for r in runs)
    ok = seconds <= TIME_TARGET and rss <= RSS_TARGET
    print(
        f"compare (every assignor, end to end): {seconds:.2f} s, {seconds / baseline:.1f}x baseline, "
        f"peak RSS {rss / GIB:.2f} GiB  [target <= {TIME_TARGET:.0f} s, <= {RSS_TARGET / GIB:.1f} GiB at 1M: "
        f"{'met' if ok else 'missed'}]"
    )
    if not args.workdir:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
