"""Benchmark of sweeps on Spark (a script, not a test: timings are printed, not asserted).

Usage::

    python benchmarks/bench_sweep.py                        # the quick spec; also 4x its seeds if needed
    python benchmarks/bench_sweep.py --scale 1 4 --repeat 3
    python benchmarks/bench_sweep.py --spec my.toml --scale 2 --no-auto-scale
    python benchmarks/bench_sweep.py --spec heavy --scale 2 --no-auto-scale   # larger groups (below)
    python benchmarks/bench_sweep.py --spec full --sample 50                  # estimate the full study, no Spark

Targets (issue 5, "Performance (benchmark, ratios)"):

* Spark ``local[2]`` sweeps at least **1.8x** the scenarios per second of
  ``local[1]`` (two task slots against one, same spec);
* Spark's fixed costs are amortized: report the **break-even** size, the
  number of scenarios from which ``local[2]`` (fixed costs included) finishes
  before a plain in-process loop over the same scenarios.

Method.  The baseline, measured in this process, is the loop every Spark
worker runs, without Spark: :func:`compare.sweep.rows.scenario_rows` over
every task of the spec in order (``spec.task(i)``), one core.  Each Spark
measurement runs in a fresh child process (a new JVM and new Python
workers, as a user's ``assignment-oracle sweep`` gets) and writes into a
fresh output directory with the progress bar off; the child times, apart:

``session``
    :func:`compare.sweep.job.spark_session` (JVM start, SparkContext);
``sweep``
    :func:`compare.sweep.job.run_sweep` on that session: chunks, Parquet
    appends, counterexample files, the Spark-side summary.

For each master three sweeps are timed: the spec itself (default chunking,
``m`` chunks of ``n`` scenarios), a *near-empty* sweep (one scenario: the
spec's first grid point and seed, one chunk) and a *chunked* near-empty
sweep (its first four seeds, ``chunk_size=1``: four chunks).  With
``T(s, k) = F + k*h + s*c`` (``F`` fixed per sweep: Python workers starting,
summary and counterexample jobs; ``h`` per chunk; ``c`` per scenario)::

    h = (T(4, 4) - T(1, 1) - 3c) / 3        c = (T(n, m) - T(1, 1) - (m - 1)h) / (n - 1)

solved together (two linear equations).  ``c`` for ``local[1]`` is Spark's
per-scenario *core-seconds*; the loop's is the baseline's.  The fixed cost
of a sweep from a cold process is ``session + F + h`` (plus ``h`` per extra
chunk; :data:`compare.sweep.job.MAX_CHUNKS` bounds the chunks, so at most 16).

Reported: scenarios per second (``n / sweep`` and ``n / (session +
sweep)``), the ``local[2]/local[1]`` throughput ratio on the whole sweep and
on the marginal cost ``c``, against 1.8, and the break-even size
``(session2 + F2 + h2) / (c_loop - c2)``.  When the whole-sweep ratio misses
1.8 at the largest size asked for (fixed costs dominate small sweeps), the
spec is measured again with 4x its seeds (unless ``--no-auto-scale``).
Times are the best of ``--repeat`` runs; the load average is printed with
each, since a shared machine slows what it measures.

``--spec heavy`` (:data:`HEAVY`, built in here) is the quick spec's mix at
sizes from the ``full`` spec (48 to 200 members, up to 100 topics; about
0.6 s per scenario in-process against quick's 0.04 s): where Spark's
per-task and per-file costs are small next to the work, which is what the
``local[2]/local[1]`` target is about.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from assignment_oracle.compare.sweep.rows import scenario_rows, versions
from assignment_oracle.compare.sweep.spec import SweepSpec, read_spec, scenario_id, spec_from_mapping

TARGET_RATIO = 1.8
#: The quick mix at full-spec sizes: ~0.6 s per scenario in-process (quick: ~0.04 s).
HEAVY = {
    "name": "heavy",
    "description": "quick's families at sizes from the full spec",
    "seeds": 6,
    "assignors": "all",
    "time_limit": 60,
    "checks": {"cpsat_sample": 0.0, "brute_force_limit": 1024},
    "families": [
        {"family": "uniform", "grid": {"members": [100], "topics": [10], "partitions": [64]}},
        {
            "family": "random-subsets",
            "grid": {"members": [200], "topics": [50], "subscribe": [0.3], "previous": "random", "churn": [2]},
        },
        {"family": "skewed-sizes", "grid": {"members": [100], "topics": [100], "sigma": [1.5]}},
        {"family": "zipf", "grid": {"members": [100], "topics": [50], "previous": "balanced", "churn": [5]}},
        {"family": "kip49-rolling", "grid": {"members": [120], "topics": [10], "new_topics": [5]}},
        {"family": "stream-join", "grid": {"members": [48], "pairs": [4], "partitions": [96]}},
        {"family": "racks", "grid": {"members": [120], "racks": [3], "subscribe": [0.5]}},
        {
            "family": "churn",
            "grid": {"members": [12], "topics": [6], "partitions": [24], "rounds": [8], "events_per_round": [4]},
        },
    ],
}
MASTERS = ("local[1]", "local[2]")
#: The chunked near-empty sweep: this many scenarios, one per chunk.
CHUNKED = 4


def scaled(spec: SweepSpec, factor: int) -> SweepSpec:
    """``spec`` with ``factor`` times as many seeds (new, distinct seeds after the existing ones)."""
    if factor == 1:
        return spec
    document = copy.deepcopy(dict(spec.document))
    seeds = list(spec.seeds)
    top = max(seeds) + 1
    document["seeds"] = seeds + list(range(top, top + len(seeds) * (factor - 1)))
    document["name"] = f"{spec.name}-x{factor}"
    return spec_from_mapping(document, source=f"{spec.name} x{factor}")


def near_empty(spec: SweepSpec, seeds: int) -> SweepSpec:
    """The spec's first grid point with its first ``seeds`` seeds (same assignors, checks, limits)."""
    document = copy.deepcopy(dict(spec.document))
    point = spec.points[0]
    document["families"] = [{"family": point.family, "grid": dict(point.params)}]
    document["seeds"] = list(spec.seeds[:seeds]) if len(spec.seeds) >= seeds else seeds
    document["name"] = f"{spec.name}-near-empty-{seeds}"
    return spec_from_mapping(document, source=document["name"])


def loop(spec: SweepSpec) -> float:
    """The baseline: every scenario's rows in this process, one after the other (seconds)."""
    version = versions()
    started = time.perf_counter()
    for i in range(spec.scenarios):
        point, seed = spec.task(i)
        scenario_rows(
            spec.hash,
            scenario_id(spec.hash, point, seed),
            point,
            seed,
            spec.assignors,
            spec.time_limit,
            spec.checks,
            version=version,
        )
    return time.perf_counter() - started


@dataclass
class SparkRun:
    session: float
    sweep: float
    total: float  # the child process, end to end (interpreter and pyspark imports included)
    rows: int
    files: int  # Parquet files under DIR/rows


def spark_run(
    spec: SweepSpec, master: str, workdir: Path, chunk_size: int | None = None, per_task: int | None = None
) -> SparkRun:
    """One sweep in a fresh child process (new JVM, new Python workers), into a fresh directory."""
    out = Path(tempfile.mkdtemp(prefix="sweep-", dir=workdir))
    job = {
        "master": master,
        "spec": dict(spec.document),
        "out": str(out / "out"),
        "chunk_size": chunk_size,
        "per_task": per_task,
    }
    log = out / "child.log"
    started = time.perf_counter()
    with open(log, "wb") as err:
        done = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(job)],
            check=False,
            stdout=subprocess.PIPE,
            stderr=err,
            timeout=7200,
        )
    total = time.perf_counter() - started
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"the {master} child failed ({done.returncode}):\n{tail}")
    result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    shutil.rmtree(out, ignore_errors=True)
    if result["computed"] != spec.scenarios:
        raise SystemExit(f"the {master} sweep computed {result['computed']} of {spec.scenarios} scenarios")
    return SparkRun(result["session"], result["sweep"], total, result["rows"], result["files"])


def child(job: dict) -> None:
    """In the child: time the session, then the sweep; print one JSON line."""
    from assignment_oracle.compare.sweep import job as sweep_job
    from assignment_oracle.compare.sweep.job import run_sweep, spark_session

    if job["per_task"] is not None:
        sweep_job.SCENARIOS_PER_TASK = job["per_task"]
    spec = spec_from_mapping(job["spec"])
    started = time.perf_counter()
    spark = spark_session(job["master"])
    session = time.perf_counter() - started
    try:
        started = time.perf_counter()
        result = run_sweep(spec, job["out"], spark=spark, progress=False, chunk_size=job["chunk_size"])
        sweep = time.perf_counter() - started
    finally:
        spark.stop()
    files = sum(1 for _ in Path(job["out"], "rows").glob("batch=*/family=*/assignor=*/*.parquet"))
    print(
        json.dumps(
            {"session": session, "sweep": sweep, "rows": result.rows, "computed": result.computed, "files": files}
        )
    )


def best(runs: list[SparkRun]) -> SparkRun:
    return min(runs, key=lambda r: r.sweep)


def chunks(spec: SweepSpec) -> int:
    from assignment_oracle.compare.sweep.job import MAX_CHUNKS, MIN_CHUNK

    size = max(MIN_CHUNK, -(-spec.scenarios // MAX_CHUNKS))
    return -(-spec.scenarios // size)


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def measure(spec: SweepSpec, repeat: int, workdir: Path, per_task: int | None = None) -> dict:
    n, m = spec.scenarios, chunks(spec)
    print(
        f"\n{spec.name}: {n} scenarios ({len(spec.points)} grid points x {len(spec.seeds)} seeds), "
        f"{len(spec.assignors)} assignors, {m} chunk(s) by default"
    )
    times = []
    for _ in range(repeat):
        times.append(loop(spec))
        print(f"  in-process loop   {times[-1]:8.2f} s   ({load()})", flush=True)
    t_loop = min(times)
    c_loop = t_loop / n
    print(
        f"  in-process loop   best {t_loop:.2f} s: {n / t_loop:6.2f} scenarios/s, {1000 * c_loop:.0f} ms per scenario"
    )
    one, four = near_empty(spec, 1), near_empty(spec, CHUNKED)
    fits = {}
    for master in MASTERS:
        runs = {"full": [], "empty": [], "chunked": []}
        for _ in range(repeat):
            runs["empty"].append(spark_run(one, master, workdir, per_task=per_task))
            runs["chunked"].append(spark_run(four, master, workdir, chunk_size=1, per_task=per_task))
            runs["full"].append(spark_run(spec, master, workdir, per_task=per_task))
            r = runs["full"][-1]
            print(
                f"  {master:9s} sweep  {r.sweep:8.2f} s   session {r.session:5.2f} s   process {r.total:7.2f} s   "
                f"near-empty {runs['empty'][-1].sweep:5.2f} s   {CHUNKED} chunks of 1 {runs['chunked'][-1].sweep:5.2f} s"
                f"   ({load()})",
                flush=True,
            )
        full, empty, chunked = best(runs["full"]), best(runs["empty"]), best(runs["chunked"])
        # T(1,1) = F + h + c;  T(4,4) = F + 4h + 4c;  T(n,m) = F + m h + n c.
        a = (chunked.sweep - empty.sweep) / (CHUNKED - 1)  # = h + c
        b = full.sweep - empty.sweep  # = (m - 1) h + (n - 1) c
        c = (b - (m - 1) * a) / ((n - 1) - (m - 1)) if n != m else b / max(1, n - 1)
        h = a - c
        fixed_sweep = empty.sweep - c  # F + h
        session = min(r.session for r in runs["full"] + runs["empty"] + runs["chunked"])
        fits[master] = {"full": full, "c": c, "h": h, "F": fixed_sweep - h, "session": session}
        print(
            f"  {master:9s} best   {full.sweep:.2f} s: {n / full.sweep:6.2f} scenarios/s "
            f"({n / (full.session + full.sweep):.2f} with the session); per scenario c = {1000 * c:.0f} ms, "
            f"per chunk h = {h:.2f} s, fixed per sweep F = {fixed_sweep - h:.2f} s, session {session:.2f} s; "
            f"{full.rows} rows in {full.files} Parquet files ({full.files / n:.1f} per scenario)"
        )
    one_, two = fits["local[1]"], fits["local[2]"]
    whole = one_["full"].sweep / two["full"].sweep
    marginal = one_["c"] / two["c"] if two["c"] > 0 else float("inf")
    print(
        f"  local[2]/local[1] throughput: whole sweep {whole:.2f}x (target {TARGET_RATIO}x, ratio "
        f"{whole / TARGET_RATIO:.2f}); marginal per-scenario {marginal:.2f}x (ratio {marginal / TARGET_RATIO:.2f})"
    )
    print(
        f"  local[1] per scenario vs the loop: {one_['c'] / c_loop:.2f}x the loop's core-seconds "
        f"(Arrow, Parquet, Python worker overhead)"
    )
    fixed2 = two["session"] + two["F"] + two["h"]
    gain = c_loop - two["c"]
    if gain > 0:
        print(
            f"  break-even: local[2] beats the loop from {fixed2 / gain:.0f} scenarios "
            f"(fixed {fixed2:.1f} s = session {two['session']:.1f} + sweep {two['F'] + two['h']:.1f}, "
            f"saving {1000 * gain:.0f} ms per scenario); this spec is {n}"
        )
    else:
        print(
            f"  break-even: none; local[2] costs {1000 * two['c']:.0f} ms per scenario, the loop {1000 * c_loop:.0f} ms"
        )
    return {"n": n, "whole": whole, "marginal": marginal, "c_loop": c_loop, "fits": fits}


def estimate(result: dict) -> None:
    """What 1,000,000 scenarios of this mix cost on N executors of C cores (printed)."""
    core_s = result["fits"]["local[1]"]["c"]
    fixed = result["fits"]["local[2]"]
    n = 1_000_000
    print(
        f"\n1,000,000 scenarios of this mix: {core_s * n / 3600:.0f} core-hours "
        f"(local[1]'s {1000 * core_s:.0f} ms per scenario; the loop's {1000 * result['c_loop']:.0f} ms)"
    )
    overhead = fixed["session"] + fixed["F"] + 16 * fixed["h"]
    for executors, cores in ((1, 2), (4, 4), (16, 4), (64, 8)):
        hours = core_s * n / (executors * cores) / 3600
        print(
            f"  {executors:3d} executors x {cores} cores: {hours:7.2f} h + about {overhead:.0f} s fixed "
            f"(session, workers starting, 16 chunks, summary)"
        )


def sample_cost(spec: SweepSpec, every: int, overhead: float) -> None:
    """Estimate a spec too long to run here from every ``every``-th scenario, in this process (printed).

    Tasks run grid point by grid point, seed by seed, so with ``every`` equal
    to the number of seeds the sample is one scenario per grid point: every
    size the spec covers, weighted as the spec weights it.  The estimate
    multiplies the sampled core-seconds by ``every`` and by ``overhead``
    (Spark's per-scenario cost against the loop's, measured by this script:
    ``local[1]``'s ``c`` over the loop's).
    """
    version = versions()
    by_family: dict[str, list[float]] = {}
    slowest: list[tuple[float, str]] = []
    for i in range(0, spec.scenarios, every):
        point, seed = spec.task(i)
        started = time.perf_counter()
        scenario_rows(
            spec.hash,
            scenario_id(spec.hash, point, seed),
            point,
            seed,
            spec.assignors,
            spec.time_limit,
            spec.checks,
            version=version,
        )
        elapsed = time.perf_counter() - started
        by_family.setdefault(point.family, []).append(elapsed)
        slowest.append((elapsed, f"{point.family} {dict(point.params)} seed {seed}"))
    sampled = sum(len(v) for v in by_family.values())
    total = sum(sum(v) for v in by_family.values())
    print(
        f"\n{spec.name}: {spec.scenarios} scenarios; {sampled} sampled (every {every}th), {total:.1f} s in-process, {load()}"
    )
    for family, times in by_family.items():
        print(
            f"  {family:<15} {len(times):4d} sampled  {sum(times):8.1f} s  (mean {sum(times) / len(times):6.2f} s, "
            f"max {max(times):6.2f} s)"
        )
    print("  slowest: " + "; ".join(f"{t:.1f} s {what}" for t, what in sorted(slowest, reverse=True)[:3]))
    core_s = total * every * overhead
    print(f"estimated: {core_s / 3600:.1f} core-hours on Spark (x{every} sampled, x{overhead} Spark overhead)")
    for executors, cores in ((1, 2), (4, 4), (16, 4)):
        print(
            f"  {executors:3d} executors x {cores} cores: {core_s / (executors * cores) / 3600:6.2f} h "
            "(if the largest scenarios do not end last)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--spec", default="quick", help="spec file, bundled name, or 'heavy' (built in here; default quick)"
    )
    parser.add_argument(
        "--scale",
        type=int,
        nargs="+",
        default=[1],
        metavar="K",
        help="measure with K times the spec's seeds (several allowed; default 1)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement; the best counts (default 1)")
    parser.add_argument(
        "--no-auto-scale",
        action="store_true",
        help="do not add a 4x-seeds measurement when local[2]/local[1] misses the target",
    )
    parser.add_argument(
        "--scenarios-per-task",
        type=int,
        metavar="K",
        help="override compare.sweep.job.SCENARIOS_PER_TASK in the Spark children (an experiment)",
    )
    parser.add_argument("--workdir", help="where the output directories go (default: a temporary directory)")
    parser.add_argument(
        "--sample",
        type=int,
        metavar="EVERY",
        help="no Spark: estimate the spec from every EVERY-th scenario run in-process (e.g. --spec full --sample 50)",
    )
    parser.add_argument(
        "--overhead",
        type=float,
        default=1.12,
        help="with --sample: Spark's per-scenario cost over the loop's (default 1.12, measured on heavy)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(json.loads(args.child))
        return
    if args.sample is not None:
        if args.sample < 1:
            parser.error("--sample must be at least 1")
        sample_cost(
            spec_from_mapping(HEAVY, source="heavy") if args.spec == "heavy" else read_spec(args.spec),
            args.sample,
            args.overhead,
        )
        return
    if args.repeat < 1 or any(k < 1 for k in args.scale):
        parser.error("--repeat and --scale must be at least 1")
    spec = spec_from_mapping(HEAVY, source="heavy") if args.spec == "heavy" else read_spec(args.spec)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-sweep-"))
    workdir.mkdir(parents=True, exist_ok=True)
    per_task = args.scenarios_per_task
    print(
        f"bench_sweep: spec {spec.name}, {os.cpu_count()} cores, {load()}, repeat {args.repeat}"
        + (f", SCENARIOS_PER_TASK={per_task}" if per_task else "")
    )
    results = {}
    scales = sorted(set(args.scale))
    try:
        for k in scales:
            results[k] = measure(scaled(spec, k), args.repeat, workdir, args.scenarios_per_task)
        top = scales[-1]
        if results[top]["whole"] < TARGET_RATIO and not args.no_auto_scale:
            print(f"\nlocal[2]/local[1] is {results[top]['whole']:.2f}x at {top}x seeds: measuring {4 * top}x seeds")
            results[4 * top] = measure(scaled(spec, 4 * top), args.repeat, workdir, args.scenarios_per_task)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\nsummary (whole-sweep and marginal local[2]/local[1], target 1.8x):")
    for k, r in sorted(results.items()):
        print(f"  {k}x seeds, {r['n']} scenarios: whole {r['whole']:.2f}x, marginal {r['marginal']:.2f}x")
    estimate(results[max(results)])


if __name__ == "__main__":
    main()
