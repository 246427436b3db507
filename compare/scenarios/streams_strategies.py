"""Hypothesis strategies for Streams groups (KIP-1071, :mod:`assignment_oracle.problem.streams`): a public API.

``streams_scenarios()`` draws the JSON scenario (a dict, what users write and what an assignor written
without this project reads); ``streams_problems()`` the validated Streams group (the kinds table's reader).  Draws cover
what a real group presents: several members per process, previous active / standby / warm-up tasks
(sometimes of tasks the topology no longer has), reported offsets, client tags, and standby replicas
from 0 to more than the processes can hold.  ``random_streams_scenario(rng)`` draws the same kind of
dict from a ``random.Random``, for batches too large for Hypothesis.

The consumer group strategies are in :mod:`assignment_oracle.compare.scenarios.strategies`; both are
re-exported, with JSON-shaped strategies for every kind, by :mod:`assignment_oracle.strategies`.
"""

from __future__ import annotations

from typing import Callable

from hypothesis import strategies as st

from assignment_oracle.compare.scenarios.strategies import (
    joiner,
    member_leaves,
    no_event,
)
from assignment_oracle.problem.kinds import GroupProblem, kind_named

__all__ = [
    "STREAMS_EVENTS",
    "random_streams_scenario",
    "streams_problems",
    "streams_scenarios",
]

_NAMES = st.text(alphabet="abcdefgh-_0123456789", min_size=1, max_size=6)


@st.composite
def streams_scenarios(
    draw,
    *,
    max_subtopologies: int = 4,
    max_tasks: int = 8,
    max_processes: int = 5,
    max_members_per_process: int = 3,
    previous: bool = True,
    max_standby_replicas: int = 3,
    process_tags: bool = False,
) -> dict:
    """A Streams group as its JSON scenario (``{"kind": "streams", "subtopologies": ..., "members": ...}``),
    always readable by the Streams group's reader (:data:`~assignment_oracle.problem.kinds.KINDS`).

    Subtopology, process and member names are short strings of ``a-h``, digits, ``-`` and ``_``; with
    ``previous`` members carry previous tasks (now and then a task the topology no longer has) and
    reported offsets.  Examples shrink towards fewer subtopologies, tasks, processes and members, no
    previous tasks and no standby replicas.

    Client tags are drawn per member, so members of one process may disagree (hostile input, which the
    optimum's tag-diversity tier refuses); with ``process_tags`` every member of a process carries its
    process's tags, as a Kafka Streams instance configures them once (draws without it are unchanged).
    """
    subs = draw(st.lists(_NAMES, min_size=0, max_size=max_subtopologies, unique=True))
    subtopologies = {s: {"tasks": draw(st.integers(1, max_tasks)), "stateful": draw(st.booleans())} for s in subs}
    tasks = [(s, p) for s, spec in subtopologies.items() for p in range(spec["tasks"])]
    # a few tasks the topology does not have: a removed subtopology, a partition beyond the count
    stale = [("gone", 0), *((s, spec["tasks"]) for s, spec in subtopologies.items())]
    processes = draw(st.lists(_NAMES, min_size=1, max_size=max_processes, unique=True))
    members: dict[str, dict] = {}
    tag_keys = ["zone", "rack"]
    for process in processes:
        for _ in range(draw(st.integers(1, max_members_per_process))):
            member_id = draw(_NAMES.filter(lambda n: n not in members))
            member: dict = {"process": process}
            if draw(st.booleans()):
                member["client_tags"] = {k: draw(st.sampled_from("abc")) for k in tag_keys if draw(st.booleans())}
            if previous and tasks:
                pool = tasks + (stale if draw(st.integers(0, 9)) == 0 else [])
                held = draw(st.lists(st.sampled_from(pool), unique=True, max_size=min(len(pool), 6)))
                roles = draw(
                    st.lists(st.sampled_from(["active", "standby", "warmup"]), min_size=len(held), max_size=len(held))
                )
                for task, role in zip(held, roles):
                    member.setdefault(role, {}).setdefault(task[0], []).append(task[1])
                reported = draw(st.lists(st.sampled_from(pool), unique=True, max_size=min(len(pool), 4)))
                for s, p in reported:
                    member.setdefault("task_offsets", {}).setdefault(s, {})[str(p)] = draw(st.integers(0, 10**6))
                    if draw(st.booleans()):
                        member.setdefault("task_end_offsets", {}).setdefault(s, {})[str(p)] = draw(
                            st.integers(0, 2 * 10**6)
                        )
            members[member_id] = member
    if process_tags:  # the first member of each process (in draw order) sets the process's tags
        tags: dict[str, dict] = {}
        for member in members.values():
            shared = tags.setdefault(member["process"], member.get("client_tags"))
            member.pop("client_tags", None)
            if shared is not None:
                member["client_tags"] = dict(shared)
    scenario: dict = {"kind": "streams", "subtopologies": subtopologies, "members": members}
    replicas = draw(st.integers(0, max_standby_replicas))
    if replicas or draw(st.booleans()):
        scenario["standby_replicas"] = replicas
    if draw(st.booleans()):
        scenario["rack_aware_tags"] = draw(st.lists(st.sampled_from(tag_keys + ["host"]), unique=True))
    return scenario


@st.composite
def streams_problems(draw, **options) -> GroupProblem:
    """:func:`streams_scenarios`' draws (same ``options``), validated into a Streams group."""
    return kind_named("streams").read_scenario(draw(streams_scenarios(**options)), "scenario", None, None)


def random_streams_scenario(
    rng,
    *,
    subtopologies: int = 3,
    max_tasks: int = 8,
    processes: int = 4,
    max_members_per_process: int = 3,
    standby_replicas: int | None = None,
    previous: float = 0.5,
) -> dict:
    """A random scenario from ``rng`` (a ``random.Random``), for batches too large for Hypothesis (the
    differential test against Kafka's Java, timings): names without spaces, previous tasks on about a
    ``previous`` share of the tasks, now and then a stale one, sometimes two previous active owners."""
    subs = {
        f"sub-{i}": {"tasks": rng.randint(1, max_tasks), "stateful": rng.random() < 0.6} for i in range(subtopologies)
    }
    tasks = [(s, p) for s, spec in subs.items() for p in range(spec["tasks"])]
    members: dict[str, dict] = {}
    for i in range(processes):
        for j in range(rng.randint(1, max_members_per_process)):
            members[f"m{rng.randint(0, 999)}-{i}-{j}"] = {"process": f"p{i}"}
    names = list(members)
    for task in tasks:
        if rng.random() < previous:
            owners = rng.sample(names, min(len(names), rng.choice([1, 1, 1, 2])))
            for owner in owners:
                members[owner].setdefault("active", {}).setdefault(task[0], []).append(task[1])
        if rng.random() < previous:
            for holder in rng.sample(names, min(len(names), rng.randint(1, 2))):
                if task[1] not in members[holder].get("active", {}).get(task[0], []):
                    members[holder].setdefault("standby", {}).setdefault(task[0], []).append(task[1])
        if rng.random() < previous / 2:
            for holder in rng.sample(names, min(len(names), rng.randint(1, 3))):
                offset = rng.choice([0, 10, 100, rng.randint(0, 10**6)])
                members[holder].setdefault("task_offsets", {}).setdefault(task[0], {})[str(task[1])] = offset
    if tasks and rng.random() < 0.2:  # a previous task of a subtopology that shrank
        s = rng.choice(list(subs))
        members[rng.choice(names)].setdefault("active", {}).setdefault(s, []).append(subs[s]["tasks"] + 1)
    replicas = rng.randint(0, 3) if standby_replicas is None else standby_replicas
    return {"kind": "streams", "subtopologies": subs, "standby_replicas": replicas, "members": members}


# -- hostile events: the Streams analogues of what broke real assignors ----------------------------------------


def _tasks_of(scenario: dict) -> list[tuple[str, int]]:
    return [(s, p) for s, spec in scenario["subtopologies"].items() for p in range(spec["tasks"])]


def _release(entry: dict, task: tuple[str, int]) -> None:
    """The task out of every role of the member (a task is in one role of a member at most)."""
    s, p = task
    for role in ("active", "standby", "warmup"):
        held = (entry.get(role) or {}).get(s)
        if held and p in held:
            held.remove(p)
            if not held:
                del entry[role][s]
            if not entry[role]:
                del entry[role]


def _hold(entry: dict, role: str, task: tuple[str, int]) -> None:
    _release(entry, task)
    entry.setdefault(role, {}).setdefault(task[0], []).append(task[1])


def _active_twice(scenario: dict, a: int, b: int, name: str) -> None:
    """Two members both had one task active (a zombie's stale claim; Kafka keeps the last it iterates)."""
    tasks, members = _tasks_of(scenario), sorted(scenario["members"])
    if not tasks or len(members) < 2:
        return
    task = tasks[a % len(tasks)]
    first = b % len(members)
    for member_id in (members[first], members[(first + 1) % len(members)]):
        _hold(scenario["members"][member_id], "active", task)


def _two_roles(scenario: dict, a: int, b: int, name: str) -> None:
    """A task held in two roles: active on one member, standby on another, of the same process when the
    process has two members."""
    tasks, members = _tasks_of(scenario), sorted(scenario["members"])
    if not tasks or len(members) < 2:
        return
    task = tasks[a % len(tasks)]
    owner = members[b % len(members)]
    process = scenario["members"][owner]["process"]
    mates = [m for m in members if m != owner and scenario["members"][m]["process"] == process]
    other = mates[0] if mates else members[(b + 1) % len(members)]
    for entry in scenario["members"].values():
        _release(entry, task)
    _hold(scenario["members"][owner], "active", task)
    _hold(scenario["members"][other], "standby", task)


def _orphaned_standby(scenario: dict, a: int, b: int, name: str) -> None:
    """A stateful task whose active left: nobody had it active, one member had it as a standby (standby
    replicas at least 1)."""
    tasks, members = _tasks_of(scenario), sorted(scenario["members"])
    if not tasks or not members:
        return
    task = tasks[a % len(tasks)]
    for entry in scenario["members"].values():
        _release(entry, task)
    _hold(scenario["members"][members[b % len(members)]], "standby", task)
    scenario["subtopologies"][task[0]]["stateful"] = True
    scenario["standby_replicas"] = max(1, scenario.get("standby_replicas", 0))


def _removed_task(scenario: dict, a: int, b: int, name: str) -> None:
    """A member had a task active that the topology no longer has: its subtopology lost its last input
    partition (even ``b``) or was removed (odd ``b``)."""
    subs, members = sorted(scenario["subtopologies"]), sorted(scenario["members"])
    if not subs or not members:
        return
    s = subs[a % len(subs)]
    count = scenario["subtopologies"][s]["tasks"]
    _hold(scenario["members"][members[b % len(members)]], "active", (s, count - 1))
    if b % 2 == 0 and count > 1:
        scenario["subtopologies"][s]["tasks"] = count - 1
    else:
        del scenario["subtopologies"][s]


def _added_tasks(scenario: dict, a: int, b: int, name: str) -> None:
    """One or two input partitions added to a subtopology: new tasks nobody had."""
    subs = sorted(scenario["subtopologies"])
    if subs:
        scenario["subtopologies"][subs[a % len(subs)]]["tasks"] += 1 + b % 2


def _new_process(scenario: dict, a: int, b: int, name: str) -> str:
    """A member joins on a process of its own (a new Kafka Streams instance)."""
    joined = f"joined-{name}"
    scenario["members"][joined] = {"process": f"process-{name}"}
    return joined


def _standby_replicas(scenario: dict, a: int, b: int, name: str) -> None:
    """``num.standby.replicas`` changed (0 to 2)."""
    scenario["standby_replicas"] = b % 3


#: A Streams group's events, ``"none"`` first.
STREAMS_EVENTS: dict[str, Callable[[dict, int, int, str], str | None]] = {
    "none": no_event,
    "leave": member_leaves,
    "join": joiner("streams"),
    "join-new-process": _new_process,
    "active-twice": _active_twice,
    "two-roles": _two_roles,
    "orphaned-standby": _orphaned_standby,
    "removed-task": _removed_task,
    "added-tasks": _added_tasks,
    "standby-replicas": _standby_replicas,
}
