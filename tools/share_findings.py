"""Search for the smallest share groups where Kafka's SimpleAssignor breaks its own rules.

Run ``python tools/share_findings.py --seed N`` (``--groups``).  Random small share groups (1-3 topics of
1-4 partitions, 1-6 members, some partitions not assignable, current assignments at random) go through the
port of Kafka's assignor in Java's iteration order (:mod:`heuristics.share_simple`, equal to Kafka's Java on
every group tools/kafka_differential/share.py drew); each kind of finding is then shrunk greedily (a member,
a topic, a partition, a held partition, a subscription or an assignable restriction removed) while it
persists, and the smallest per kind is printed as a JSON line, ready for ``share.py --scenario`` to confirm on
Kafka's Java.  Kinds:

``crash``              Kafka's Java throws (``NoSuchElementException`` from the unfilled-member iterator);
``under-shared``       clean input (members hold only assignable partitions of topics they subscribe to): a
                       partition ends below the builder's own ``desiredSharing`` although a subscriber that
                       does not hold it ends below its own desired count (``assignRemainingPartitions``
                       counted a member twice: not the javadoc's tolerated case, where every unfilled member
                       already holds the partition);
``skewed``             clean input: two members' loads differ by more than one although some valid assignment
                       of the same partitions and sharing has them within one (the javadoc's "should not exceed
                       one partition"), here: two members with the same subscription;
``kept-unassignable``  the answer holds a partition that is not assignable;
``kept-unsubscribed``  the answer holds a partition of a topic its member does not subscribe to;
``uncovered``          an assignable partition of a subscribed topic is left with no member.

``--recording`` checks the issue's first suspicion instead: ``assignRemainingPartitions`` does not add the
member it just assigned to the partition's member set.  Over the differential's groups
(``share.generate``) it counts how often a member is picked twice for one partition, and compares Kafka's
answer (the port) with the answer of the same code that records the member (Kafka's fix would be
``membersAssigned.add(memberIndex)``): equal answers mean the omission loses no sharer.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from assignment_oracle.heuristics import share_simple
from assignment_oracle.problem.share import ShareProblem, holders, loads, uncovered, violations

sys.path.insert(0, str(Path(__file__).resolve().parent / "kafka_differential"))

KINDS = ("crash", "under-shared", "skewed", "kept-unassignable", "kept-unsubscribed", "uncovered")
IDS = ["AAAAAAAAAAAAAAAAAAAAAQ", "AAAAAAAAAAAAAAAAAAAAAg", "AAAAAAAAAAAAAAAAAAAAAw", "AAAAAAAAAAAAAAAAAAAABA"]


def clean(problem: ShareProblem) -> bool:
    """Every member holds only assignable partitions of topics it subscribes to."""
    return all(t in m.topics and problem.is_assignable(t, p) for m in problem.members for t, p in m.assigned)


def targets(problem: ShareProblem) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """What Kafka's builder aims at, per topic: ``desiredSharing`` and each subscriber's desired count of the
    topic's partitions (the homogeneous builder's group-wide targets are given to every topic alike, its
    desired counts per member over all topics under the key ``"*"``)."""
    members = share_simple.member_iteration_order(problem, "java")
    sharing: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {}
    if problem.is_homogeneous:
        subscribed = list(problem.members[0].topics) if problem.members else []
        n = sum(len(problem.assignable_partitions(t)) for t in subscribed)
        ds = share_simple._desired_sharing(len(members), n)
        for t in subscribed:
            sharing[t] = ds
        counts["*"] = dict(zip(members, share_simple._desired_counts(ds, n, len(members))))
        return sharing, counts
    for t in problem.topics:
        subs = [m for m in members if t in problem.member[m].topics]
        if not subs:
            continue
        n = len(problem.assignable_partitions(t))
        sharing[t] = share_simple._desired_sharing(len(subs), n)
        counts[t] = dict(zip(subs, share_simple._desired_counts(sharing[t], n, len(subs))))
    return sharing, counts


def kinds_of(scenario: dict) -> set[str]:
    """The kinds of finding ``scenario`` shows (Kafka's answer as the port gives it in Java's order)."""
    problem = ShareProblem.from_mapping(scenario)
    try:
        answer = share_simple.assign(problem, iteration_order="java")
    except share_simple.SimpleAssignorException:
        return {"crash"}
    found = set()
    kinds = {v.kind for v in violations(problem, answer)}
    if "not-assignable" in kinds:
        found.add("kept-unassignable")
    if "not-subscribed" in kinds:
        found.add("kept-unsubscribed")
    if uncovered(problem, answer):
        found.add("uncovered")
    if clean(problem) and problem.members:
        sharing, counts = targets(problem)
        held = holders(problem, answer)
        for t, ds in sharing.items():
            wanted = counts["*"] if "*" in counts else counts[t]
            for p in problem.assignable_partitions(t):
                if held[problem.index_of(t, p)] >= ds:
                    continue
                for m in problem.subscribers(t):
                    mine = answer.of(m)
                    have = len(mine) if "*" in counts else sum(1 for tt, _ in mine if tt == t)
                    if (t, p) not in mine and have < wanted[m]:
                        found.add("under-shared")
        load = loads(problem, answer)
        by_subscription: dict[frozenset, list[int]] = {}
        for i, m in enumerate(problem.members):
            by_subscription.setdefault(frozenset(m.topics), []).append(int(load[i]))
        if any(max(ls) - min(ls) > 1 for ls in by_subscription.values()):
            found.add("skewed")
    return found


def random_group(rng: random.Random) -> dict:
    names = ["t", "u", "v"][: rng.randint(1, 3)]
    topics: dict = {}
    for i, t in enumerate(names):
        n = rng.randint(1, 4)
        spec: dict = {"partitions": n, "id": IDS[i]}
        if rng.random() < 0.3:
            spec["assignable"] = [p for p in range(n) if rng.random() < 0.6]
        topics[t] = spec
    members: dict = {}
    homogeneous = rng.random() < 0.5
    common = [t for t in names if rng.random() < 0.7] or names[:1]
    for k in range(rng.randint(1, 6)):
        subscribed = common if homogeneous else [t for t in names if rng.random() < 0.5]
        spec = {"topics": list(subscribed)}
        held = {}
        for t in names:
            if (t in subscribed and rng.random() < 0.6) or rng.random() < 0.1:
                ps = [p for p in range(topics[t]["partitions"]) if rng.random() < 0.5]
                if ps:
                    held[t] = ps
        if held:
            spec["assigned"] = held
        members[f"m{k}"] = spec
    return {"kind": "share", "topics": topics, "members": members}


def candidates(scenario: dict) -> Iterator[dict]:
    sys_path_share = __import__("share")  # tools/kafka_differential/share.py's shrinking steps
    yield from sys_path_share.candidates(scenario)


def shrink(scenario: dict, keeps: Callable[[dict], bool], budget: int = 4000) -> dict:
    tries, progress = 0, True
    while progress and tries < budget:
        progress = False
        for s in candidates(scenario):
            tries += 1
            try:
                ShareProblem.from_mapping(s)
            except ValueError:
                continue
            if keeps(s):
                scenario, progress = s, True
                break
    return scenario


def size(scenario: dict) -> tuple[int, int, int, int]:
    held = sum(len(ps) for m in scenario["members"].values() for ps in m.get("assigned", {}).values())
    return (
        len(scenario["members"]),
        sum(t["partitions"] for t in scenario["topics"].values()),
        len(scenario["topics"]),
        held,
    )


class _Recording:
    """``assignRemainingPartitions`` of both builders, patched in for a run: ``record`` adds the member just
    assigned to the partition's member set (the fix); either way a member picked twice for one partition is
    counted in ``double_picks``."""

    def __init__(self, record: bool) -> None:
        self.record = record
        self.double_picks = 0

    def loop(self, members_assigned, to_make, state, take) -> None:
        """One partition's ``while (assignmentsToMake > 0)`` loop; ``state`` holds the iterator and the flag."""
        picked: set = set()
        while to_make > 0:
            if not state["iterator"].has_next():
                if not state["flag"]:
                    break
                state["iterator"] = share_simple._Iterator(state["unfilled"])
                state["flag"] = False
            i = state["iterator"].next()
            if i not in members_assigned:
                if i in picked:
                    self.double_picks += 1
                picked.add(i)
                take(i)
                if self.record:
                    members_assigned.add(i)
                to_make -= 1
                state["flag"] = True

    def homogeneous(self, builder) -> None:
        if not len(builder.unfilled_members):
            return
        problem = builder.group.problem
        state = {
            "iterator": share_simple._Iterator(builder.unfilled_members),
            "flag": False,
            "unfilled": builder.unfilled_members,
        }
        for j in builder.final_assignment_by_partition.order():
            members = builder.final_assignment_by_partition.get(j)
            if len(members) < builder.desired_sharing:
                topic, p = problem.partitions[j]

                def take(i, topic=topic, p=p, j=j):
                    builder._new_assignment_of(i).setdefault(topic, set()).add(p)
                    held = builder.final_assignment_by_member.compute_if_absent(i, builder._set_of_partitions)
                    held.add(j)
                    if len(held) >= builder.desired_assignment_count[i]:
                        state["iterator"].remove()

                self.loop(members, builder.desired_sharing - len(members), state, take)
            if not len(builder.unfilled_members):
                break

    def heterogeneous(self, builder) -> None:
        unfilled = builder._set(share_simple._new_capacity(builder.outer.num_group_members))
        for i in builder.subscribed_members:
            held = builder.final_assignment_by_member.get(i)
            if (0 if held is None else len(held)) < builder.desired_assignment_counts[i]:
                unfilled.add(i)
        state = {"iterator": share_simple._Iterator(unfilled), "flag": False, "unfilled": unfilled}
        for p in builder.final_assignment_by_partition.order():
            members = builder.final_assignment_by_partition.get(p)
            if len(members) < builder.desired_sharing:

                def take(i, p=p):
                    builder.outer.new_assignment_of(i).setdefault(builder.topic_id, set()).add(p)
                    held = builder.final_assignment_by_member.compute_if_absent(i, builder._set)
                    held.add(p)
                    if len(held) >= builder.desired_assignment_counts[i]:
                        state["iterator"].remove()

                self.loop(members, builder.desired_sharing - len(members), state, take)
            if not len(unfilled):
                break

    def assign(self, problem: ShareProblem):
        saved = (
            share_simple._HomogeneousBuilder.assign_remaining_partitions,
            share_simple._TopicAssignmentPartialBuilder.assign_remaining_partitions,
        )
        share_simple._HomogeneousBuilder.assign_remaining_partitions = lambda b: self.homogeneous(b)
        share_simple._TopicAssignmentPartialBuilder.assign_remaining_partitions = lambda b: self.heterogeneous(b)
        try:
            return share_simple.assign(problem, iteration_order="java")
        except share_simple.SimpleAssignorException as e:
            return e.java_class
        finally:
            (
                share_simple._HomogeneousBuilder.assign_remaining_partitions,
                share_simple._TopicAssignmentPartialBuilder.assign_remaining_partitions,
            ) = saved


def recording(seed: int, groups: int, max_partitions: int) -> int:
    share = __import__("share")
    kafka, fixed = _Recording(record=False), _Recording(record=True)
    differ = same_as_port = 0
    smallest = None
    for index in range(groups):
        problem = ShareProblem.from_mapping(share.generate(seed, index, max_partitions))
        before = kafka.double_picks
        as_kafka, as_fixed = kafka.assign(problem), fixed.assign(problem)
        try:
            port = share_simple.assign(problem, iteration_order="java")
        except share_simple.SimpleAssignorException as e:
            port = e.java_class
        same_as_port += as_kafka == port
        if as_kafka != as_fixed:
            differ += 1
        if kafka.double_picks > before and (
            smallest is None or share.size(problem.to_mapping()) < share.size(smallest)
        ):
            smallest = problem.to_mapping()
    print(
        f"{groups} groups (share.generate seed {seed}): the patched-in loop equals the port on {same_as_port}; "
        f"a member picked twice for one partition {kafka.double_picks} times (recording: {fixed.double_picks}); "
        f"answers changed by recording the member: {differ}"
    )
    if smallest is not None:
        print("smallest group with a double pick", json.dumps(smallest, separators=(",", ":")))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--groups", type=int, default=3000)
    parser.add_argument("--recording", action="store_true", help="the first suspicion (module docstring)")
    parser.add_argument("--max-partitions", type=int, default=8, help="with --recording")
    args = parser.parse_args(argv)
    if args.recording:
        return recording(args.seed, args.groups, args.max_partitions)
    rng = random.Random(f"share_findings/{args.seed}")
    first: dict[str, dict] = {}
    counts = dict.fromkeys(KINDS, 0)
    for _ in range(args.groups):
        scenario = random_group(rng)
        for kind in kinds_of(scenario):
            counts[kind] += 1
            if kind not in first or size(scenario) < size(first[kind]):
                first[kind] = scenario
    print(f"{args.groups} groups (seed {args.seed}): " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for kind in KINDS:
        if kind in first:
            smallest = shrink(first[kind], lambda s, kind=kind: kind in kinds_of(s))
            print(kind, json.dumps(smallest, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
