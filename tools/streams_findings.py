"""Search for the smallest Streams groups where Kafka's StickyTaskAssignor falls short of the exact optimum.

Run ``python tools/streams_findings.py --seed N`` (``--groups``, ``--shrink`` to bound the work).  Random
small groups (1-4 processes of 1-3 members, 1-3 subtopologies of 1-4 tasks, 0-2 standby replicas, previous
actives, standbys and reported offsets at random) are run through the port of Kafka's assignor
(:mod:`heuristics.streams_sticky`) in Java's iteration order and in sorted order, and judged against
``optimal.solve`` tier by tier (:mod:`optimal.streams_request`).  Kinds of finding:

``invalid``          :func:`problem.streams.violations` is not empty;
``shortfall``        a standby Kafka does not place although a valid assignment places it;
``active-balance``   the members' active counts less balanced than the optimum's;
``task-balance``     active balance optimal, total tasks (actives and standbys) less balanced;
``actives-moved``    both balances optimal, fewer actives kept than the optimum keeps;
``standbys-moved``   both balances and actives kept optimal, fewer standbys kept;
``state-ignored``    all of the above optimal, fewer copies on a member with state for them;
``steady-active``    Kafka's own answer fed back as the previous assignment: an active moves;
``steady-standby``   fed back, an active stays but a standby moves;
``oracle-beaten``    Kafka's answer better than the "optimum" on a tier: a defect of the oracle, not Kafka's.

Each first finding of a kind (and order) is shrunk greedily -- a member, a subtopology, a task, a
standby replica, a stateful flag, a previous task or an offset removed, two processes merged, the names
made canonical -- while the same kind persists, and the smallest per kind is printed as JSON.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections.abc import Callable, Iterator

from assignment_oracle.heuristics.streams_sticky import assign
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.streams_request import ACTIVE_BALANCE, TASK_BALANCE, measure
from assignment_oracle.problem.streams import StreamsAssignment, StreamsProblem, violations

ORDERS = ("java", "sorted")
KINDS = (
    "invalid",
    "shortfall",
    "active-balance",
    "task-balance",
    "actives-moved",
    "standbys-moved",
    "state-ignored",
    "steady-active",
    "steady-standby",
    "oracle-beaten",
)


# -- the judgement -------------------------------------------------------------------------------


def fed_back(scenario: dict, result: StreamsAssignment) -> dict:
    """``scenario`` with each member's previous tasks replaced by what ``result`` gave it (no offsets)."""
    members = {}
    for member_id, spec in scenario["members"].items():
        tasks = result.members[member_id]
        member: dict = {"process": spec["process"]}
        for role, listed in (("active", tasks.active), ("standby", tasks.standby)):
            for s, p in listed:
                member.setdefault(role, {}).setdefault(s, []).append(p)
        members[member_id] = member
    return {**scenario, "members": members}


def moved(first: StreamsAssignment, second: StreamsAssignment, role: str) -> set:
    """(member, task) pairs in one answer's ``role`` tasks and not the other's."""
    members = set(first.members) | set(second.members)
    return {
        (m, t)
        for m in members
        for t in set(getattr(first.members.get(m, ()), role, ())) ^ set(getattr(second.members.get(m, ()), role, ()))
    }


def kinds(scenario: dict, order: str) -> set[str]:
    """The kinds of finding Kafka's assignor (in ``order``) shows on ``scenario``."""
    problem = StreamsProblem.from_mapping(scenario)
    if not problem.members:
        return set()
    result = assign(problem, iteration_order=order)
    found = set()
    if violations(problem, result):
        return {"invalid"}
    again = assign(StreamsProblem.from_mapping(fed_back(scenario, result)), iteration_order=order)
    if moved(result, again, "active"):
        found.add("steady-active")
    elif moved(result, again, "standby"):
        found.add("steady-standby")
    optimum = solve(problem)
    mine, best = measure(problem, result), optimum.measures
    if mine.shortfall > best.shortfall:
        found.add("shortfall")
        return found
    for tier in (ACTIVE_BALANCE, TASK_BALANCE):
        if mine.value(tier) != best.value(tier):
            found.add(tier if tuple(mine.value(tier)) > tuple(best.value(tier)) else "oracle-beaten")
            return found
    for name, have, could in zip(
        ("actives-moved", "standbys-moved", "state-ignored"), mine.stickiness, best.stickiness
    ):
        if have != could:
            found.add(name if have < could else "oracle-beaten")
            break
    return found


# -- random groups ------------------------------------------------------------------------------


def random_scenario(rng: random.Random) -> dict:
    """A small random group; the caps themselves drawn first, so tiny groups come up often."""
    most = rng.choice([2, 3, 4])
    subs = {
        f"s{i}": {"tasks": rng.randint(1, most), "stateful": rng.random() < 0.6}
        for i in range(rng.randint(1, most - 1))
    }
    tasks = [(s, p) for s, spec in subs.items() for p in range(spec["tasks"])]
    members: dict[str, dict] = {}
    for i in range(rng.randint(1, most)):
        for j in range(rng.randint(1, 3) if rng.random() < 0.5 else 1):
            members[f"m{i}{j}"] = {"process": f"p{i}"}
    names = list(members)
    previous = rng.choice([0.0, 0.3, 0.7])
    for s, p in tasks:
        if rng.random() < previous:
            members[rng.choice(names)].setdefault("active", {}).setdefault(s, []).append(p)
        if subs[s]["stateful"] and rng.random() < previous:
            holder = members[rng.choice(names)]
            if p not in holder.get("active", {}).get(s, []):
                holder.setdefault("standby", {}).setdefault(s, []).append(p)
        if rng.random() < previous / 3:
            holder = members[rng.choice(names)]
            holder.setdefault("task_offsets", {}).setdefault(s, {})[str(p)] = rng.choice([0, 10, 100])
    return {"kind": "streams", "subtopologies": subs, "standby_replicas": rng.randint(0, 2), "members": members}


# -- shrinking ---------------------------------------------------------------------------------


def size(scenario: dict) -> tuple:
    """Smaller is simpler: processes, members, tasks, standbys asked, previous tasks and offsets."""
    members = scenario["members"].values()
    processes = len({m["process"] for m in members})
    tasks = sum(s["tasks"] for s in scenario["subtopologies"].values())
    stateful = sum(s["tasks"] for s in scenario["subtopologies"].values() if s["stateful"])
    previous = sum(len(ps) for m in members for role in ("active", "standby") for ps in m.get(role, {}).values())
    offsets = sum(len(ps) for m in members for ps in m.get("task_offsets", {}).values())
    return (processes, len(members), tasks, stateful * scenario.get("standby_replicas", 0), previous, offsets)


def _prune(scenario: dict) -> dict:
    """Drop previous tasks and offsets the topology no longer has, and empty maps."""
    subs = scenario["subtopologies"]
    for member in scenario["members"].values():
        for role in ("active", "standby"):
            kept = {s: [p for p in ps if s in subs and p < subs[s]["tasks"]] for s, ps in member.get(role, {}).items()}
            kept = {s: ps for s, ps in kept.items() if ps}
            member.pop(role, None)
            if kept:
                member[role] = kept
        offsets = {
            s: {p: o for p, o in ps.items() if s in subs and int(p) < subs[s]["tasks"]}
            for s, ps in member.get("task_offsets", {}).items()
        }
        offsets = {s: ps for s, ps in offsets.items() if ps}
        member.pop("task_offsets", None)
        if offsets:
            member["task_offsets"] = offsets
    return scenario


def smaller(scenario: dict) -> Iterator[dict]:
    """Each one-step simplification of ``scenario``."""
    members = scenario["members"]
    processes = sorted({m["process"] for m in members.values()})
    if len(members) > 1:
        for member_id in members:
            out = copy.deepcopy(scenario)
            del out["members"][member_id]
            yield out
    for a in processes:
        for b in processes:
            if a < b:
                out = copy.deepcopy(scenario)
                for m in out["members"].values():
                    if m["process"] == b:
                        m["process"] = a
                yield out
    if len(scenario["subtopologies"]) > 1:
        for s in scenario["subtopologies"]:
            out = copy.deepcopy(scenario)
            del out["subtopologies"][s]
            yield _prune(out)
    for s, spec in scenario["subtopologies"].items():
        if spec["tasks"] > 1:
            out = copy.deepcopy(scenario)
            out["subtopologies"][s]["tasks"] -= 1
            yield _prune(out)
        if spec["stateful"]:
            out = copy.deepcopy(scenario)
            out["subtopologies"][s]["stateful"] = False
            yield out
    if scenario.get("standby_replicas", 0) > 0:
        out = copy.deepcopy(scenario)
        out["standby_replicas"] -= 1
        yield out
    for member_id, member in members.items():
        for role in ("active", "standby"):
            for s, ps in member.get(role, {}).items():
                for p in ps:
                    out = copy.deepcopy(scenario)
                    out["members"][member_id][role][s].remove(p)
                    yield _prune(out)
        for s, ps in member.get("task_offsets", {}).items():
            for p in ps:
                out = copy.deepcopy(scenario)
                del out["members"][member_id]["task_offsets"][s][p]
                yield _prune(out)


def canonical(scenario: dict) -> dict:
    """Processes p0, p1, ..., members m0, m1, ... (in process order), subtopologies s0, s1, ..."""
    subs = {s: f"s{i}" for i, s in enumerate(scenario["subtopologies"])}
    procs = {p: f"p{i}" for i, p in enumerate(sorted({m["process"] for m in scenario["members"].values()}))}
    ids = sorted(scenario["members"], key=lambda m: (procs[scenario["members"][m]["process"]], m))
    out = {
        "kind": "streams",
        "subtopologies": {subs[s]: spec for s, spec in scenario["subtopologies"].items()},
        "standby_replicas": scenario.get("standby_replicas", 0),
        "members": {},
    }
    for i, member_id in enumerate(ids):
        member = scenario["members"][member_id]
        renamed: dict = {"process": procs[member["process"]]}
        for role in ("active", "standby", "task_offsets"):
            if member.get(role):
                renamed[role] = {subs[s]: ps for s, ps in member[role].items()}
        out["members"][f"m{i}"] = renamed
    return out


def shrink(scenario: dict, keeps: Callable[[dict], bool]) -> dict:
    """Greedy: take any one-step simplification that ``keeps`` the finding, until none does."""
    current = scenario
    progress = True
    while progress:
        progress = False
        for candidate in smaller(current):
            if size(candidate) <= size(current) and candidate != current and keeps(candidate):
                current, progress = candidate, True
                break
    named = canonical(current)
    return named if keeps(named) else current


# -- the search ---------------------------------------------------------------------------------


def search(seed: int, groups: int, shrinks: int) -> dict[tuple[str, str], dict]:
    rng = random.Random(seed)
    smallest: dict[tuple[str, str], dict] = {}
    shrunk: dict[tuple[str, str], int] = {}
    for _ in range(groups):
        scenario = random_scenario(rng)
        for order in ORDERS:
            for kind in kinds(scenario, order):
                key = (kind, order)
                if shrunk.get(key, 0) >= shrinks:
                    continue
                shrunk[key] = shrunk.get(key, 0) + 1
                small = shrink(scenario, lambda s, kind=kind, order=order: kind in kinds(s, order))
                if key not in smallest or size(small) < size(smallest[key]):
                    smallest[key] = small
    return smallest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--groups", type=int, default=400, help="random groups to judge")
    parser.add_argument("--shrink", type=int, default=3, help="findings shrunk per kind and order")
    args = parser.parse_args(argv)
    smallest = search(args.seed, args.groups, args.shrink)
    for kind in KINDS:
        for order in ORDERS:
            if (kind, order) in smallest:
                scenario = smallest[(kind, order)]
                problem = StreamsProblem.from_mapping(scenario)
                result = assign(problem, iteration_order=order)
                best = solve(problem)
                print(f"== {kind} ({order}), size {size(scenario)}")
                print(json.dumps(scenario, sort_keys=False))
                print("  kafka:  ", json.dumps(result.to_mapping()["members"]))
                print("  optimum:", json.dumps(best.assignment.to_mapping()["members"]))
                print("  kafka tiers:  ", measure(problem, result).values(best.objective_order))
                print("  optimum tiers:", best.measures.values(best.objective_order))
    missing = [k for k in KINDS if not any((k, o) in smallest for o in ORDERS)]
    print("no finding of kind:", ", ".join(missing) or "-")
    return 0


if __name__ == "__main__":
    sys.exit(main())
