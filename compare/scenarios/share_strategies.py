"""Hypothesis strategies for share groups (KIP-932, :mod:`assignment_oracle.problem.share`): a public API.

``share_scenarios()`` draws the JSON scenario (a dict, what users write and what an assignor written
without this project reads); ``share_problems()`` the validated share group (the kinds table's reader).  Draws cover what
a share group presents: members on different topics, partitions whose share state is not initialised yet
(``assignable``), current assignments where several members hold one partition, and now and then a held
partition of a topic the member no longer subscribes to, or one not assignable.
``random_share_scenario(rng)`` draws the same kind of dict from a ``random.Random``, for batches too large
for Hypothesis (the sweeps' share family).
"""

from __future__ import annotations

import random
from typing import Callable

from hypothesis import strategies as st

from assignment_oracle.compare.scenarios.strategies import (
    joiner,
    member_leaves,
    no_event,
    pick,
)
from assignment_oracle.problem.kinds import GroupProblem, kind_named

__all__ = [
    "SHARE_EVENTS",
    "random_share_scenario",
    "share_problems",
    "share_scenarios",
]


@st.composite
def share_scenarios(
    draw,
    *,
    max_topics: int = 3,
    max_partitions: int = 4,
    max_members: int = 4,
    assigned: bool = True,
    assignable: bool = True,
) -> dict:
    """A share group as its JSON scenario (``{"kind": "share", "topics": ..., "members": ...}``), always
    readable by the share group's reader (:data:`~assignment_oracle.problem.kinds.KINDS`).

    Topics ``t0, t1, ...`` of 1 to ``max_partitions`` partitions, with ``assignable`` some of them restricted
    to a subset (possibly empty); members ``m0, m1, ...`` (the group's order) each on a subset of the topics,
    with ``assigned`` a current assignment of any partitions of any topics (several members may hold one).
    Examples shrink towards fewer topics, partitions and members, every partition assignable and nothing
    held.
    """
    topics: dict = {}
    for k in range(draw(st.integers(1, max_topics))):
        count = draw(st.integers(1, max_partitions))
        if assignable and draw(st.booleans()) and draw(st.booleans()):
            allowed = draw(st.lists(st.integers(0, count - 1), unique=True, max_size=count))
            topics[f"t{k}"] = {"partitions": count, "assignable": sorted(allowed)}
        else:
            topics[f"t{k}"] = count
    names = list(topics)
    counts = {t: (v if isinstance(v, int) else v["partitions"]) for t, v in topics.items()}
    members: dict = {}
    for i in range(draw(st.integers(0, max_members))):
        spec: dict = {"topics": draw(st.lists(st.sampled_from(names), unique=True))}
        if assigned:
            held = {}
            for t in names:
                parts = draw(st.lists(st.integers(0, counts[t] - 1), unique=True, max_size=counts[t]))
                if parts:
                    held[t] = sorted(parts)
            if held:
                spec["assigned"] = held
        members[f"m{i}"] = spec
    return {"kind": "share", "topics": topics, "members": members}


@st.composite
def share_problems(draw, **options) -> GroupProblem:
    """A share group drawn by :func:`share_scenarios` (same options)."""
    return kind_named("share").read_scenario(draw(share_scenarios(**options)), "scenario", None, None)


def random_share_scenario(
    rng: random.Random,
    *,
    topics: int = 3,
    partitions: int = 6,
    members: int = 8,
    heterogeneous: float = 0.5,
    held: float = 0.5,
    unassignable: float = 0.1,
) -> dict:
    """A share group drawn from ``rng``: up to ``topics`` topics of 1 to ``partitions`` partitions (each
    partition not assignable with probability ``unassignable``), 1 to ``members`` members, on every topic or
    (with probability ``heterogeneous`` for the group) each on a random non-empty subset, each member holding
    each partition of its topics with probability ``held / partitions of the topic``-ish (a current
    assignment where partitions may be shared)."""
    count = rng.randint(1, topics)
    spec: dict = {}
    for k in range(count):
        n = rng.randint(1, partitions)
        blocked = [p for p in range(n) if rng.random() < unassignable]
        spec[f"t{k}"] = {"partitions": n, "assignable": [p for p in range(n) if p not in blocked]} if blocked else n
    names = list(spec)
    sizes = {t: (v if isinstance(v, int) else v["partitions"]) for t, v in spec.items()}
    mixed = rng.random() < heterogeneous
    out: dict = {}
    for i in range(rng.randint(1, members)):
        subscribed = [t for t in names if rng.random() < 0.6] if mixed else list(names)
        if not subscribed:
            subscribed = [rng.choice(names)]
        holding = {}
        for t in subscribed:
            parts = [p for p in range(sizes[t]) if rng.random() < held * 2 / max(2, sizes[t])]
            if parts:
                holding[t] = parts
        member: dict = {"topics": subscribed}
        if holding:
            member["assigned"] = holding
        out[f"m{i}"] = member
    return {"kind": "share", "topics": spec, "members": out}


# -- hostile events: the share group analogues of what broke real assignors ------------------------------------


def _counts(scenario: dict) -> dict[str, int]:
    return {t: (v if isinstance(v, int) else v["partitions"]) for t, v in scenario["topics"].items()}


def _held_unassignable(scenario: dict, a: int, b: int, name: str) -> None:
    """A member holds a partition whose share state is no longer initialised (not assignable), of a topic it
    subscribes to (share-held-unassignable-kept, -crash)."""
    topic = pick(scenario["topics"], a)
    member_id = pick(scenario["members"], b)
    if topic is None or member_id is None:
        return
    count = _counts(scenario)[topic]
    p = b % count
    spec = scenario["topics"][topic]
    allowed = range(count) if isinstance(spec, int) or spec.get("assignable") is None else spec["assignable"]
    scenario["topics"][topic] = {
        **({} if isinstance(spec, int) else spec),
        "partitions": count,
        "assignable": [q for q in allowed if q != p],
    }
    entry = scenario["members"][member_id]
    if topic not in entry["topics"]:
        entry["topics"].append(topic)
    held = entry.setdefault("assigned", {}).setdefault(topic, [])
    if p not in held:
        held.append(p)
        held.sort()


def _held_unsubscribed(scenario: dict, a: int, b: int, name: str) -> None:
    """A member drops a topic from its subscription while it still holds a partition of it
    (share-unsubscribed-topic-kept)."""
    topic = pick(scenario["topics"], a)
    member_id = pick(scenario["members"], b)
    if topic is None or member_id is None:
        return
    entry = scenario["members"][member_id]
    held = entry.setdefault("assigned", {}).setdefault(topic, [])
    if not held:
        held.append(b % _counts(scenario)[topic])
    entry["topics"] = [t for t in entry["topics"] if t != topic]


def _added_partitions(scenario: dict, a: int, b: int, name: str) -> None:
    """One or two partitions added to a topic; where the topic lists its assignable partitions, the new ones
    are not (their share state is not initialised yet)."""
    topic = pick(scenario["topics"], a)
    if topic is None:
        return
    spec = scenario["topics"][topic]
    if isinstance(spec, int):
        scenario["topics"][topic] = spec + 1 + b % 2
    else:
        spec["partitions"] += 1 + b % 2


def _deleted_topic(scenario: dict, a: int, b: int, name: str) -> None:
    """A topic deleted (while another is left): gone from the metadata, and so from every subscription and
    every current assignment (a share scenario names only topics the metadata has)."""
    if len(scenario["topics"]) < 2:
        return
    topic = pick(scenario["topics"], a)
    del scenario["topics"][topic]
    for entry in scenario["members"].values():
        entry["topics"] = [t for t in entry["topics"] if t != topic]
        (entry.get("assigned") or {}).pop(topic, None)
        if "assigned" in entry and not entry["assigned"]:
            del entry["assigned"]


def _empty_subscription(scenario: dict, a: int, b: int, name: str) -> str | None:
    """A member subscribed to nothing (it may still hold partitions), or, with an odd ``b``, one joins so."""
    member_id = pick(scenario["members"], a)
    if member_id is None or b % 2:
        joined = f"idle-{name}"
        scenario["members"][joined] = {"topics": []}
        return joined
    scenario["members"][member_id]["topics"] = []
    return None


def _subscribe(scenario: dict, a: int, b: int, name: str) -> None:
    """Heterogeneous subscriptions: a member subscribes to a topic it did not, or drops one it did."""
    member_id, topic = pick(scenario["members"], a), pick(scenario["topics"], b)
    if member_id is None or topic is None:
        return
    entry = scenario["members"][member_id]
    entry["topics"] = (
        [t for t in entry["topics"] if t != topic] if topic in entry["topics"] else [*entry["topics"], topic]
    )


def _shared_held(scenario: dict, a: int, b: int, name: str) -> None:
    """Two members hold one partition (a share group may share it)."""
    topic = pick(scenario["topics"], a)
    members = sorted(scenario["members"])
    if topic is None or len(members) < 2:
        return
    p = a % _counts(scenario)[topic]
    for member_id in (members[b % len(members)], members[(b + 1) % len(members)]):
        held = scenario["members"][member_id].setdefault("assigned", {}).setdefault(topic, [])
        if p not in held:
            held.append(p)
            held.sort()


#: A share group's events, ``"none"`` first.
SHARE_EVENTS: dict[str, Callable[[dict, int, int, str], str | None]] = {
    "none": no_event,
    "leave": member_leaves,
    "join": joiner("share"),
    "held-unassignable": _held_unassignable,
    "held-unsubscribed": _held_unsubscribed,
    "added-partitions": _added_partitions,
    "deleted-topic": _deleted_topic,
    "empty-subscription": _empty_subscription,
    "subscribe": _subscribe,
    "shared-held": _shared_held,
}
