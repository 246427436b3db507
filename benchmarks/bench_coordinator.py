"""The group coordinator's scale (issue 40): the exact optimum against the I/O floor and Kafka's UniformAssignor port.

The shape KIP-1263 measured the coordinator's assignor on: 1,000 members,
1,000 topics of 50 partitions (50,000 partitions), random heterogeneous
subscriptions.  Kafka's own JMH benchmark (``ServerSideAssignorBenchmark``)
draws heterogeneous groups as five buckets of members sharing a slice of the
topics; here each member subscribes to each topic independently with
probability 0.1 (seeded; about 100 topics per member, 100 subscribers per
topic, 100,000 subscriptions, every subscriber set distinct), the harder case
for an aggregated model.  Two groups:

``fresh``
    nobody owns anything;
``churn``
    5% of the members (50, drawn at random) replaced by new members with
    their own random subscriptions; every other member claims, at generation
    1, what the optimum of ``fresh`` gave it (the coordinator's previous
    target assignment).

Each group is written as a scenario file and read back (not timed).  Figures,
all in this process, the best of ``--repeat`` runs:

* the I/O floor: reading the scenario file with ``json`` and writing
  ``solve``'s answer document with ``json.dumps`` (as :mod:`bench_cli` does);
* the library: ``optimal.solve`` on a freshly read problem (no cached lookup
  carries over), status ``OPTIMAL`` with a certificate that
  ``optimal.verify`` accepts, and where its time goes, stage by stage
  (``--no-stages`` leaves that run out): claim resolution, the aggregated
  network, the load estimate (the windows), building the flow's arcs,
  OR-Tools' min-cost flow, decoding the flow into partitions, checking the
  answer valid, finding the certificate's prices, verifying them, and
  measuring the tiers;
* Kafka's port: ``uniform`` (KIP-848's UniformAssignor, heterogeneous
  builder) on the same problem, with its balance and stickiness against the
  optimum's.

Target (issue 40): solved and certified in <= 100 ms of library time, fresh
and after the churn (Kafka's Java: 15-20 ms on this shape).  The stages are
timed in separate runs (the wrappers cost a little), and the figures move with
the machine's load: print ``uptime`` with them.

    python benchmarks/bench_coordinator.py [--repeat 5] [--no-stages] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import orjson

from assignment_oracle.heuristics import uniform
from assignment_oracle.optimal import certificate as certificate_module
from assignment_oracle.optimal import engines, flow, network, solution, solve, verify
from assignment_oracle.problem.metrics import load_array, retained
from assignment_oracle.problem.scenario_json import read_problem

MEMBERS, TOPICS, PARTITIONS, DENSITY, CHURN = 1000, 1000, 50, 0.1, 0.05
TARGET = 0.100  # seconds of library time (issue 40)


def fresh_group(seed: int = 1263) -> dict:
    """1,000 members x 1,000 topics x 50 partitions, each member on each topic with probability 0.1."""
    rng = np.random.default_rng(seed)
    names = [f"topic-{t:04d}" for t in range(TOPICS)]
    members = {}
    for m in range(MEMBERS):
        chosen = np.flatnonzero(rng.random(TOPICS) < DENSITY)
        if chosen.size == 0:
            chosen = rng.integers(TOPICS, size=1)
        members[f"member-{m:04d}"] = {"topics": [names[t] for t in chosen]}
    return {"topics": {n: PARTITIONS for n in names}, "members": members}


def churned_group(fresh: dict, previous: dict, seed: int = 1264) -> dict:
    """``fresh`` with 5% of its members replaced (new ids, new random subscriptions); the others claim
    ``previous`` (member -> topic -> partitions, the optimum of ``fresh``) at generation 1."""
    rng = np.random.default_rng(seed)
    ids = sorted(fresh["members"])
    names = sorted(fresh["topics"])
    count = int(round(CHURN * len(ids)))
    gone = set(rng.choice(len(ids), size=count, replace=False).tolist())
    members = {}
    for i, member in enumerate(ids):
        if i not in gone:
            owned = {t: list(ps) for t, ps in previous.get(member, {}).items() if ps}
            members[member] = {**fresh["members"][member], "owned": owned, "generation": 1}
    for j in range(count):
        chosen = np.flatnonzero(rng.random(len(names)) < DENSITY)
        if chosen.size == 0:
            chosen = rng.integers(len(names), size=1)
        members[f"new-member-{j:03d}"] = {"topics": [names[t] for t in chosen]}
    return {"topics": fresh["topics"], "members": members}


#: The stages of ``optimal.solve`` (flow engine), as (label, module, attribute): each is timed by wrapping
#: the function where the caller looks it up; a stage's time excludes the stages timed inside it.
STAGES = (
    ("claims resolution", network, "resolve_claims"),
    ("aggregated network", flow, "build_network"),
    ("load estimate (windows)", flow, "initial_windows"),
    ("flow arcs", flow, "_build"),
    ("min-cost flow (OR-Tools)", flow, "_run_ortools"),
    ("decode the flow", network.AggregatedNetwork, "materialize"),
    ("validity (owner arrays)", solution, "owner_arrays"),
    ("certify (prices)", solution, "certify"),
    ("verify the certificate", certificate_module, "_verify"),
    ("measure the tiers", engines, "_with_tiers"),
)


@contextmanager
def stage_timers(totals: dict[str, float]):
    """Wrap every stage of :data:`STAGES`; ``totals[label]`` gathers its own seconds (children excluded),
    ``totals["other"]`` what ``solve`` spends outside every stage."""
    saved = [(module, name, getattr(module, name)) for _, module, name in STAGES]
    stack: list[float] = []  # seconds spent in timed children, per open stage

    def timed(label, function):
        def wrapper(*args, **kwargs):
            stack.append(0.0)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                children = stack.pop()
                totals[label] = totals.get(label, 0.0) + elapsed - children
                if stack:
                    stack[-1] += elapsed

        return wrapper

    for label, module, name in STAGES:
        setattr(module, name, timed(label, getattr(module, name)))
    try:
        yield
    finally:
        for module, name, function in saved:
            setattr(module, name, function)


def best_of(repeat: int, run) -> float:
    return min(run() for _ in range(repeat))


def measure_group(label: str, scenario: Path, workdir: Path, repeat: int, stages: bool):
    """Print one group's figures; return the optimum's assignment as a mapping."""

    def library() -> float:
        problem = read_problem(scenario)  # not timed; a fresh problem, nothing cached
        started = time.perf_counter()
        solve(problem)
        return time.perf_counter() - started

    problem = read_problem(scenario)
    answer = solve(problem)
    if answer.status != "OPTIMAL" or answer.certificate is None:
        raise SystemExit(f"{label}: status {answer.status}, no certificate")
    reasons = verify(problem, answer.assignment, answer.certificate)
    if reasons:
        raise SystemExit(f"{label}: the certificate does not verify: {reasons[0]}")
    document = answer.to_mapping()
    document_bytes = orjson.dumps(document)

    def io_floor() -> float:
        started = time.perf_counter()
        json.loads(scenario.read_bytes())
        read = time.perf_counter() - started
        parsed = json.loads(document_bytes)  # not timed: only its writing is
        write_started = time.perf_counter()
        (workdir / "floor.json").write_text(json.dumps(parsed))
        return read + time.perf_counter() - write_started

    def port() -> float:
        fresh_problem = read_problem(scenario)
        started = time.perf_counter()
        uniform.assign(fresh_problem)
        return time.perf_counter() - started

    floor = best_of(repeat, io_floor)
    seconds = best_of(repeat, library)
    port_seconds = best_of(repeat, port)
    kafka = uniform.assign(problem)
    kafka_loads = Counter(load_array(problem, kafka).tolist())
    best_loads = Counter(answer.sorted_loads)
    subscriptions = sum(len(s) for s in problem.subscribers.values())
    print(
        f"{label}: {len(problem.members)} members, {len(problem.topics)} topics, {problem.total_partitions} partitions, "
        f"{subscriptions} subscriptions, {answer.owned} with a previous owner; scenario {scenario.stat().st_size / 1e6:.1f} MB"
    )
    print(
        f"  network: {answer.stats['hubs']} hubs, {answer.stats['classes']} classes, {answer.stats['nodes']} nodes, "
        f"{answer.stats['arcs']} arcs, {answer.stats['rounds']} round(s)"
    )
    print(f"  I/O floor (read scenario + write answer, json): {floor * 1e3:7.1f} ms")
    print(
        f"  library optimal.solve, certified:              {seconds * 1e3:7.1f} ms   target {TARGET * 1e3:.0f} ms "
        f"({seconds / TARGET:.2f}x the target)   {seconds / floor:.2f}x the I/O floor   "
        f"{seconds / port_seconds:.2f}x the Kafka port"
    )
    print(
        f"  Kafka port (uniform):                          {port_seconds * 1e3:7.1f} ms   {port_seconds / floor:.2f}x the I/O floor"
    )
    print(
        f"  optimum: loads {_counts(best_loads)}, kept {answer.retained}/{answer.owned}; "
        f"uniform: loads {_counts(kafka_loads)}, kept {retained(problem, kafka)}/{answer.owned}"
    )
    if stages:
        runs = []
        for _ in range(max(1, repeat)):
            totals: dict[str, float] = {}
            fresh_problem = read_problem(scenario)
            with stage_timers(totals):
                started = time.perf_counter()
                solve(fresh_problem)
                totals["all"] = time.perf_counter() - started
            totals["other (solve itself)"] = totals["all"] - sum(v for k, v in totals.items() if k != "all")
            runs.append(totals)
        print(
            f"  where the time goes (median of {len(runs)} instrumented runs, each stage without the ones inside it):"
        )
        for name in [label for label, _, _ in STAGES] + ["other (solve itself)", "all"]:
            print(f"    {name:28s} {statistics.median(r.get(name, 0.0) for r in runs) * 1e3:7.1f} ms")
    return answer.assignment.to_mapping(problem.member_ids)


def _counts(loads: Counter) -> str:
    return "[" + ", ".join(f"{load}x{n}" for load, n in sorted(loads.items(), reverse=True)) + "]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the fastest counts (default 5)")
    parser.add_argument("--no-stages", action="store_true", help="leave out the per-stage breakdown")
    parser.add_argument("--workdir", help="where the scenarios go (default: a temporary folder)")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench-coordinator-"))
    workdir.mkdir(parents=True, exist_ok=True)
    fresh = fresh_group()
    (workdir / "fresh.json").write_bytes(orjson.dumps(fresh))
    previous = measure_group("fresh", workdir / "fresh.json", workdir, args.repeat, not args.no_stages)
    (workdir / "churn.json").write_bytes(orjson.dumps(churned_group(fresh, previous)))
    measure_group("churn (5% of members replaced)", workdir / "churn.json", workdir, args.repeat, not args.no_stages)
    if not args.workdir:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
