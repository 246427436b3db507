"""Benchmarks of the exact models (a script, not a test: timings are printed, not asserted).

Usage::

    python benchmarks/bench_oracle.py            # every case
    python benchmarks/bench_oracle.py kafka-1m   # one case (kafka-1m, random-20pct, zipf-200k)

Each case prints wall times, the ratio to its target (< 1.0 meets it) and,
where several methods run on the same input in this process, their ratios.
Memory is the peak traced by ``tracemalloc`` during a second, separate solve
(tracing slows the run, so it is never timed) plus the process's peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from assignment_oracle.optimal import solve
from assignment_oracle.problem.model import Member, Problem, Topic

GIB = 1024**3


def kafka_large(leave: bool) -> Problem:
    """Kafka's own stress test: 2,000 members x 500 topics x 2,000 partitions, all subscribed."""
    topics = tuple(Topic(f"topic-{t:03d}", 2000) for t in range(500))
    names = frozenset(t.name for t in topics)
    members = tuple(Member(f"member-{m:04d}", names) for m in range(2000))
    fresh = Problem(topics, members)
    if not leave:
        return fresh
    previous = solve(fresh).assignment
    survivors = tuple(
        Member(
            m.member_id,
            names,
            owned=tuple((t, ps) for t, ps in sorted(previous.members[m.member_id].items())),
            generation=1,
        )
        for m in members[1:]
    )
    return Problem(topics, survivors)


def random_subscriptions(seed: int = 7) -> Problem:
    """1,000 members, 200 topics x 50 partitions, each member on a random 20%, random previous owners."""
    rng = np.random.default_rng(seed)
    topics = tuple(Topic(f"t{t:03d}", 50) for t in range(200))
    subscriptions = [frozenset(f"t{t:03d}" for t in rng.choice(200, size=40, replace=False)) for _ in range(1000)]
    return Problem(topics, _with_random_owners(rng, topics, subscriptions))


def zipf_topics(seed: int = 11) -> Problem:
    """5,000 members, 1,000 topics with Zipf sizes (about 200k partitions), skewed subscriptions."""
    rng = np.random.default_rng(seed)
    raw = 1.0 / np.arange(1, 1001) ** 0.9
    sizes = np.maximum(1, np.round(raw / raw.sum() * 200_000)).astype(int)
    topics = tuple(Topic(f"z{t:04d}", int(n)) for t, n in enumerate(sizes))
    popularity = raw / raw.sum()
    subscriptions = []
    for _ in range(5000):
        k = int(min(1000, 1 + rng.zipf(1.6)))  # most members subscribe to a few topics, some to many
        chosen = rng.choice(1000, size=min(k, 1000), replace=False, p=popularity)
        subscriptions.append(frozenset(f"z{t:04d}" for t in chosen))
    return Problem(topics, _with_random_owners(rng, topics, subscriptions))


def _with_random_owners(rng, topics, subscriptions) -> tuple[Member, ...]:
    """Each partition previously owned by a random subscriber (10% unowned)."""
    owned: list[dict[str, list[int]]] = [{} for _ in subscriptions]
    for topic in topics:
        subscribers = [i for i, s in enumerate(subscriptions) if topic.name in s]
        if not subscribers:
            continue
        owners = rng.choice(subscribers, size=topic.partitions)
        for p, o in enumerate(owners.tolist()):
            if rng.random() >= 0.1:
                owned[o].setdefault(topic.name, []).append(p)
    return tuple(
        Member(f"m{i:04d}", s, owned=tuple((t, tuple(ps)) for t, ps in sorted(owned[i].items())), generation=3)
        for i, s in enumerate(subscriptions)
    )


def timed(problem: Problem, method: str, **kwargs):
    started = time.perf_counter()
    solution = solve(problem, method=method, **kwargs)
    return solution, time.perf_counter() - started


def traced_peak(problem: Problem, method: str) -> int:
    tracemalloc.start()
    solve(problem, method=method)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def describe(name: str, problem: Problem, solution, seconds: float, target: float) -> None:
    s = solution.stats
    print(
        f"  {name:10s} {seconds:8.3f} s   target {target:5.1f} s   ratio {seconds / target:5.2f}   "
        f"status {solution.status}  rounds {s.get('rounds')}  hubs {s.get('hubs')}  classes {s.get('classes')}  "
        f"arcs {s.get('arcs', '-')}"
    )


def case_kafka_1m() -> None:
    print("kafka-1m: 2,000 members x 500 topics x 2,000 partitions (1,000,000), all subscribed")
    for leave in (False, True):
        problem = kafka_large(leave)
        label = "one member left" if leave else "fresh"
        solution, seconds = timed(problem, "flow")
        print(
            f" {label}: {len(problem.members)} members, sorted loads {solution.sorted_loads[0]}..{solution.sorted_loads[-1]}, "
            f"retained {solution.retained}/{solution.owned}"
        )
        describe("flow", problem, solution, seconds, 1.0)
        # After a member leaves, the previous owners make CP-SAT's search much
        # harder; it gets the flow's assignment as a warm start (the proof
        # stays its own).
        hint = solution.assignment if leave else None
        cpsat, t_cpsat = timed(problem, "cpsat", time_limit=150, hint=hint)
        describe("cpsat+hint" if leave else "cpsat", problem, cpsat, t_cpsat, 60.0)
        if cpsat.status != "OPTIMAL":
            print(
                f"   (cpsat stopped at its limit: objective {cpsat.objective}, proven bound {cpsat.bound}, "
                f"optimum {solution.objective})"
            )
        nxs, t_nx = timed(problem, "networkx")
        describe("networkx", problem, nxs, t_nx, 60.0)
        print(
            f"  same optimum: {cpsat.objective == solution.objective == nxs.objective}; "
            f"ratios: flow/cpsat {seconds / t_cpsat:.4f}   flow/networkx {seconds / t_nx:.4f}"
        )
        peak = traced_peak(problem, "flow")
        print(
            f"  memory: traced peak during solve {peak / GIB:.3f} GiB (target 1 GiB, ratio {peak / GIB:.2f}); "
            f"process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2:.2f} GiB"
        )


def case_random_20pct() -> None:
    problem = random_subscriptions()
    print(
        f"random-20pct: 1,000 members, 200 topics x 50 partitions, 20% subscriptions, random owners "
        f"({problem.total_partitions} partitions)"
    )
    flow, t_flow = timed(problem, "flow")
    describe("flow", problem, flow, t_flow, 1.0)
    cpsat, t_cpsat = timed(problem, "cpsat", time_limit=120)
    describe("cpsat", problem, cpsat, t_cpsat, 60.0)
    hinted, t_hinted = timed(problem, "cpsat", time_limit=120, hint=flow.assignment)
    describe("cpsat+hint", problem, hinted, t_hinted, 60.0)
    print("   (+hint: warm-started with the flow's assignment; the lower bound, hence the proof, is CP-SAT's own)")
    nxs, t_nx = timed(problem, "networkx")
    describe("networkx", problem, nxs, t_nx, 60.0)
    same = cpsat.objective == hinted.objective == flow.objective == nxs.objective
    print(f"  same optimum: {same} (objective {flow.objective}); retained {flow.retained}/{flow.owned}")
    print(f"  ratios: flow/cpsat {t_flow / t_cpsat:.4f}   flow/networkx {t_flow / t_nx:.4f}")


def case_zipf_200k() -> None:
    problem = zipf_topics()
    subs = sum(len(v) for v in problem.subscribers.values())
    print(
        f"zipf-200k: 5,000 members, 1,000 topics with Zipf sizes ({problem.total_partitions} partitions), "
        f"{subs} subscriptions, random owners"
    )
    flow, t_flow = timed(problem, "flow")
    describe("flow", problem, flow, t_flow, 10.0)
    print(
        f"  sorted loads: max {flow.sorted_loads[0]}, min {flow.sorted_loads[-1]}; retained {flow.retained}/{flow.owned}"
    )
    peak = traced_peak(problem, "flow")
    print(f"  memory: traced peak during solve {peak / GIB:.3f} GiB")


CASES = {"kafka-1m": case_kafka_1m, "random-20pct": case_random_20pct, "zipf-200k": case_zipf_200k}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"cases to run: {', '.join(CASES)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (known: {', '.join(CASES)})")
    for name in args.cases or CASES:
        CASES[name]()


if __name__ == "__main__":
    main()
