"""Drive Kafka's own CooperativeStickyAssignor through the cooperative protocol until the group settles.

Not part of CI (issue 27; see README.md in this folder).  ``run.py`` asks Kafka for ONE rebalance per
scenario; this script feeds Kafka's answer back, as the group would, and as the port's
``heuristics.cooperative_sticky.rebalance`` does: each member now owns what Kafka assigned it (Kafka's
``assign`` already withholds the partitions transferring ownership), at the next generation (one more than
the highest sent), and the group rebalances again while any member revoked something (had a partition it
was not assigned: ``ConsumerCoordinator.onJoinComplete`` then requests a rejoin).  The group *settles* at
the first rebalance that revokes nothing; it *never settles* if it still revokes after ``--max-rebalances``.

With ``--repeat K`` a settled group is rebalanced K more times with nothing changed (its members owning the
settled assignment, one generation on), each time until it settles again: a group whose target keeps moving
between rebalances (A -> B -> A) shows there, even when each single rebalance revokes little.

Every rebalance of Kafka's is compared with the port's (``kafka4_sticky.rebalance_cooperative`` in both
iteration orders, the same phases): Kafka's Java and the port must agree step by step, so a loop found in
one is confirmed or refuted in the other.

Scenarios: ``--scenario`` (a JSON scenario, or ``@file``; repeatable), or ``--scenarios N`` random ones of a
``--family``: ``differential`` (run.py's generator), ``racks`` (rack-heavy: members on a subset of the
racks, partitions replicated on one to three racks, some only where no member is, differing subscriptions
two times in three, claims at one generation or stale) or ``fresh`` (``racks`` without claims: a group
forming).  It reuses run.py's build and JVM (``run.build``, ``run.Jvm``)::

    .venv/bin/python tools/kafka_differential/settle.py --kafka-git /work/.mirror/apache+kafka/repo \\
        --commit 1eb7644 --family racks --scenarios 20000 --repeat 2
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (this folder's run.py: build, JVM, scenario generator)

from assignment_oracle.heuristics import kafka4_sticky  # noqa: E402
from assignment_oracle.problem.errors import AssignorDidNotFinish, AssignorError  # noqa: E402
from assignment_oracle.problem.model import Problem  # noqa: E402

ASSIGNOR = "cooperative-sticky"


def _generation(member: dict) -> int:
    g = member.get("generation")
    return -1 if g is None else g


def rejoin(scenario: dict, assignment: dict) -> dict:
    """The follow-up rebalance's scenario: every member owns what it was assigned, one generation on."""
    generation = max((_generation(m) for m in scenario["members"].values()), default=-1) + 1
    members = {}
    for name, member in scenario["members"].items():
        entry = {k: v for k, v in member.items() if k not in ("owned", "generation")}
        owned = {t: sorted(ps) for t, ps in sorted(assignment.get(name, {}).items()) if ps}
        if owned:
            entry["owned"] = owned
        entry["generation"] = generation
        members[name] = entry
    return {"topics": scenario["topics"], "members": members}


def revoked(scenario: dict, assignment: dict) -> dict:
    """Per member, the partitions it owned (sent) and was not assigned."""
    out = {}
    for name, member in scenario["members"].items():
        given = assignment.get(name, {})
        lost = {
            t: sorted(set(ps) - set(given.get(t, ())))
            for t, ps in sorted(member.get("owned", {}).items())
            if set(ps) - set(given.get(t, ()))
        }
        if lost:
            out[name] = lost
    return out


def java_settle(jvm: run.Jvm, scenario: dict, max_rebalances: int) -> dict:
    """Kafka's rebalances until one revokes nothing: {"status", "phases": [{"assignment", "revoked"}], ...}."""
    phases = []
    current = scenario
    members = list(scenario["members"])
    for _ in range(max_rebalances):
        answer = jvm.ask(current, [ASSIGNOR])
        result = run.java_result(answer, ASSIGNOR, members)
        if "assignment" not in result:
            return {"status": "error", "error": result.get("error"), "phases": phases}
        assignment = result["assignment"]
        lost = revoked(current, assignment)
        phases.append({"assignment": assignment, "revoked": lost})
        if not lost:
            return {"status": "settled", "phases": phases, "final": current_after(current, assignment)}
        current = rejoin(current, assignment)
    return {"status": "never settles", "phases": phases}


def current_after(scenario: dict, assignment: dict) -> dict:
    """The settled group: its members owning the settled assignment, one generation on."""
    return rejoin(scenario, assignment)


def port_settle(scenario: dict, order: str, max_rebalances: int, literal: bool = False) -> dict:
    """The port's phases, in the same shape as :func:`java_settle`."""
    problem = Problem.from_mapping(run.ports_view(scenario))
    members = list(scenario["members"])
    try:
        result = kafka4_sticky.rebalance_cooperative(
            problem, iteration_order=order, max_rebalances=max_rebalances, **({"literal": True} if literal else {})
        )
    except AssignorDidNotFinish:
        return {"status": "never settles"}
    except AssignorError as e:
        return {"status": "error", "error": f"{type(e).__name__}: {e}"}
    phases = [
        {
            "assignment": run.normalise(p.assignment.to_mapping(), members),
            "revoked": {m: {t: sorted(ps) for t, ps in ts.items()} for m, ts in p.revoked.to_mapping().items()},
        }
        for p in result.phases
    ]
    return {"status": "settled", "phases": phases}


def same_phases(java: dict, port: dict) -> bool:
    if java["status"] != port["status"]:
        return False
    if java["status"] == "error":
        return True
    if java["status"] == "never settles":
        return True
    return [p["assignment"] for p in java["phases"]] == [p["assignment"] for p in port["phases"]]


# -- scenario families -----------------------------------------------------------------------------------------


def rack_heavy(seed: int, index: int, claims: bool = True) -> dict:
    """A rack-aware group where rack matching and balance pull apart (see the module docstring)."""
    rng = random.Random(f"kafka_differential/settle/{seed}/{index}")
    racks = [f"r{i}" for i in range(rng.randint(2, 4))]
    member_racks = racks[: rng.randint(1, len(racks))]
    names = [f"t{i}" for i in range(rng.randint(1, 3))]
    topics = {}
    for t in names:
        n = rng.randint(1, 8)
        topics[t] = {
            "partitions": n,
            "racks": [sorted(rng.sample(racks, rng.choice([0, 1, 1, 1, 2, 2, 3][: len(racks) + 4]))) for _ in range(n)],
        }
    style = rng.choice(["short", "kafka", "random"])
    used: set[str] = set()
    ids = [run._name(rng, used, style) for _ in range(rng.randint(2, 6))]
    equal = rng.random() < 1 / 3
    common = sorted(rng.sample(names, rng.randint(1, len(names))))
    members: dict = {}
    for m in ids:
        subs = list(common) if equal else sorted(rng.sample(names, rng.randint(1, len(names))))
        entry: dict = {"topics": subs}
        r = rng.random()
        if r < 0.8:
            entry["rack"] = rng.choice(member_racks)
        elif r < 0.9:
            entry["rack"] = "elsewhere"
        if rng.random() < 0.2:
            entry["instance_id"] = f"instance-{m}"
        members[m] = entry
    if claims and rng.random() < 0.8:
        generation = rng.randint(1, 5)
        for m in ids:
            members[m]["generation"] = generation if rng.random() < 0.8 else generation - 1
        for t in names:
            subscribers = [m for m in ids if t in members[m]["topics"]] or ids
            for p in range(topics[t]["partitions"]):
                if rng.random() < 0.15:
                    continue
                holders = {rng.choice(subscribers)}
                if rng.random() < 0.05:
                    holders.add(rng.choice(ids))
                for h in holders:
                    members[h].setdefault("owned", {}).setdefault(t, []).append(p)
    return {"topics": topics, "members": {m: members[m] for m in sorted(members)}}


FAMILIES = {
    "differential": run.generate,
    "racks": rack_heavy,
    "fresh": lambda seed, index: rack_heavy(seed, index, claims=False),
}


# -- main ------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/kafka_differential/settle.py", description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--kafka", metavar="PATH")
    where.add_argument("--kafka-git", metavar="DIR")
    parser.add_argument("--commit", metavar="REV")
    parser.add_argument("--scenario", action="append", default=[], help="a JSON scenario, or @file (repeatable)")
    parser.add_argument("--family", choices=sorted(FAMILIES), default="racks")
    parser.add_argument("--scenarios", type=int, default=0, metavar="N", help="random scenarios of --family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-rebalances", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=0, metavar="K", help="rebalance a settled group K more times")
    parser.add_argument("--out", metavar="FILE", help="write every scenario that does not settle (JSON lines)")
    parser.add_argument("--verbose", action="store_true", help="print every phase of the --scenario runs")
    parser.add_argument("--m2", default=str(Path.home() / ".m2" / "repository"))
    parser.add_argument("--javac", default="javac")
    parser.add_argument("--java", default="java")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args(argv)
    if args.kafka_git is not None and not args.commit:
        parser.error("--kafka-git needs --commit")
    for tool in (args.javac, args.java):
        if shutil.which(tool) is None:
            parser.error(f"{tool}: not found")
    scenarios = []
    for text in args.scenario:
        scenarios.append(json.loads(Path(text[1:]).read_text() if text.startswith("@") else text))
    generate = FAMILIES[args.family]
    scenarios += [generate(args.seed, i) for i in range(args.scenarios)]
    if not scenarios:
        parser.error("give --scenario or --scenarios N")

    source = run.kafka_source(args)
    jars = run.classpath_jars(Path(args.m2))
    classes = run.build(source, jars, args.javac, args.rebuild)
    print(f"Kafka commit: {source.describe()}")
    log = run.cache_root() / f"settle-{time.strftime('%Y%m%d-%H%M%S')}.log"
    jvm = run.Jvm(args.java, classes, jars, log)
    out = Path(args.out).open("w") if args.out else None
    tally: Counter = Counter()
    rebalances: Counter = Counter()
    started = time.monotonic()
    try:
        for index, scenario in enumerate(scenarios):
            java = java_settle(jvm, scenario, args.max_rebalances)
            tally[f"java {java['status']}"] += 1
            if java["status"] == "settled":
                rebalances[len(java["phases"])] += 1
            for order in run.ORDERS:
                port = port_settle(scenario, order, args.max_rebalances)
                tally[f"port ({order}) agrees step by step"] += same_phases(java, port)
            repeats = []
            if java["status"] == "settled":
                current = java["final"]
                for _ in range(args.repeat):
                    again = java_settle(jvm, current, args.max_rebalances)
                    moved = (
                        again["status"] != "settled"
                        or len(again["phases"]) > 1
                        or any(
                            again["phases"][0]["assignment"].get(m, {})
                            != {t: sorted(ps) for t, ps in current["members"][m].get("owned", {}).items()}
                            for m in current["members"]
                        )
                    )
                    repeats.append({"status": again["status"], "rebalances": len(again["phases"]), "moved": moved})
                    if again["status"] != "settled":
                        break
                    current = again["final"]
                if any(r["moved"] for r in repeats):
                    tally["java moved again when rebalanced with nothing changed"] += 1
                if any(r["status"] != "settled" or r["rebalances"] > 1 for r in repeats):
                    tally["java revoked again when rebalanced with nothing changed"] += 1
            if args.verbose:
                print(f"scenario {index}: {run.one_line(scenario)}")
                for k, phase in enumerate(java["phases"]):
                    print(
                        f"  rebalance {k + 1}: {run.one_line(phase['assignment'])} revoked {run.one_line(phase['revoked'])}"
                    )
                print(f"  {java['status']}" + (f" ({java.get('error')})" if java.get("error") else ""))
                for r in repeats:
                    print(f"  repeated: {r}")
            unsettled = java["status"] == "never settles" or any(r["status"] == "never settles" for r in repeats)
            if out is not None and (unsettled or any(r["rebalances"] > 1 for r in repeats)):
                out.write(json.dumps({"index": index, "scenario": scenario, "java": java, "repeats": repeats}) + "\n")
    finally:
        jvm.close()
        if out is not None:
            out.close()
    elapsed = time.monotonic() - started
    print(
        f"{len(scenarios)} scenarios ({args.family if args.scenarios else 'given'}, seed {args.seed}) in {elapsed:.1f} s"
    )
    for key in sorted(tally):
        print(f"  {key}: {tally[key]}")
    print("  Kafka's rebalances until settled: " + ", ".join(f"{k}: {v}" for k, v in sorted(rebalances.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
