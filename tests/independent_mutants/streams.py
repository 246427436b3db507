"""Streams group task assignors (KIP-1071) as a maintainer writes them against the JSON protocol: a
``{"kind": "streams", "subtopologies", "standby_replicas", "members"}`` scenario in (each member's
``process`` and its previous ``active`` and ``standby`` tasks), ``{"members": {m: {"active": {...},
"standby": {...}}}}`` out.  Written from docs/formats.md ("Streams groups") and the bug corpus alone.
"""

from __future__ import annotations


def tasks_of(scenario):
    """Every task ``(subtopology, partition)`` of the topology, in the subtopologies' order."""
    return [(s, p) for s, spec in scenario["subtopologies"].items() for p in range(spec["tasks"])]


def exists(scenario, subtopology, partition):
    """Whether the topology still has the task (a previous task may be stale)."""
    spec = scenario["subtopologies"].get(subtopology)
    return spec is not None and 0 <= partition < spec["tasks"]


def place_actives(scenario, *, keep_once):
    """Each member keeps its previous active tasks that still exist, then every other task goes to the
    member with fewest actives (join order breaks ties).  With ``keep_once`` a task two members ran
    stays with the first of them; without, with both."""
    members = scenario["members"]
    active = {member: [] for member in members}
    owner = {}
    for member, spec in members.items():
        for subtopology, partitions in (spec.get("active") or {}).items():
            for partition in sorted(set(partitions)):
                task = (subtopology, partition)
                if not exists(scenario, *task) or (keep_once and task in owner):
                    continue
                owner.setdefault(task, member)
                active[member].append(task)
    order = list(members)
    for task in tasks_of(scenario):
        if task not in owner and order:
            chosen = min(order, key=lambda m: (len(active[m]), order.index(m)))
            owner[task] = chosen
            active[chosen].append(task)
    return active, owner


def place_standbys(scenario, active, owner, *, apart):
    """For each stateful task, up to ``standby_replicas`` standbys, each to the least loaded member that
    ``apart(member, copies)`` allows, where ``copies`` are the members that already have the task.
    Fewer when nobody is allowed (valid, as in Kafka)."""
    members = scenario["members"]
    order = list(members)
    load = {member: len(active[member]) for member in members}
    standby = {member: [] for member in members}
    wanted = scenario.get("standby_replicas", 0)
    for subtopology, spec in scenario["subtopologies"].items():
        if not spec["stateful"]:
            continue
        for partition in range(spec["tasks"]):
            copies = [owner[(subtopology, partition)]]
            for _ in range(wanted):
                allowed = [m for m in order if apart(m, copies)]
                if not allowed:
                    break
                chosen = min(allowed, key=lambda m: (load[m], order.index(m)))
                standby[chosen].append((subtopology, partition))
                copies.append(chosen)
                load[chosen] += 1
    return standby


def as_answer(active, standby):
    def grouped(tasks):
        out = {}
        for subtopology, partition in tasks:
            out.setdefault(subtopology, []).append(partition)
        return out

    return {"members": {m: {"active": grouped(active[m]), "standby": grouped(standby[m])} for m in active}}


def other_process(scenario):
    """A standby may go to a member whose process has no copy of the task."""
    members = scenario["members"]

    def apart(member, copies):
        return all(members[member]["process"] != members[copy]["process"] for copy in copies)

    return apart


# ---------------------------------------------------------------------------------------------------
# Mutants.


def streams_keeps_every_previous_active(scenario):
    """Sticky Streams assignor: previous actives are kept, the rest dealt to the member with fewest
    actives, standbys on other processes.  Claims Kafka's ``valid``.

    Defect (KAFKA-7026's analogue for Streams; the corpus' "a task claimed by two members"): a task two
    members report as active (a member that missed a rebalance still reports it) is kept by both.
    """
    active, owner = place_actives(scenario, keep_once=False)
    return as_answer(active, place_standbys(scenario, active, owner, apart=other_process(scenario)))


def streams_standby_apart_by_member(scenario):
    """The same sticky Streams assignor, its standbys placed away from the task's active member.
    Claims Kafka's ``standby-not-on-same-process``.

    Defect (the corpus' "standby on the active's process" class): the standby is only kept off the
    *member* that runs the task, so with two stream threads (members) in one process the standby lands on the active's process.
    """
    active, owner = place_actives(scenario, keep_once=True)

    def apart(member, copies):
        return member not in copies

    return as_answer(active, place_standbys(scenario, active, owner, apart=apart))


# ---------------------------------------------------------------------------------------------------
# Correct.


def streams_sticky(scenario):
    """Correct: previous actives kept once (the first member in join order that reports one keeps it),
    stale tasks dropped, the rest to the member with fewest actives; every placeable standby on a
    process without a copy of the task."""
    active, owner = place_actives(scenario, keep_once=True)
    return as_answer(active, place_standbys(scenario, active, owner, apart=other_process(scenario)))
