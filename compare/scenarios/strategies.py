"""Hypothesis strategies for rebalance problems: test your own assignor against the oracle.

Three strategies, all drawing :class:`problem.model.Problem` values:

:func:`scenarios`
    The families of :mod:`compare.scenarios.families` (uniform, random subsets, skewed
    sizes, Zipf, KIP-49's rolling update, stream-join pairs, join groups, weighted partitions, racks), with
    small parameters, a previous generation and churn.  Start here.
:func:`problems`
    Tiny groups with arbitrary subscriptions and messy claims (unknown
    topics, missing partitions, stale and tied generations), small enough
    for brute force.
:func:`rebalances`
    A real previous generation followed by leaves, joins, subscription
    changes and zombie claims, the way the sticky assignors meet them.

Example (a third party checking its assignor ``my_assign(problem) -> Assignment`` against the
optimum; :mod:`assignment_oracle.strategies` re-exports these with the Streams ones, and
:func:`assignment_oracle.testing.check_assignor` runs this loop round after round)::

    from hypothesis import given
    from assignment_oracle.strategies import scenarios
    from assignment_oracle.testing import assert_optimal

    @given(scenarios())
    def test_my_assignor(problem):
        assert_optimal(problem, my_assign(problem))

``docs/scenarios.md`` has the complete version, and the comparison with the
oracle's optimum.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from hypothesis import assume, note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from assignment_oracle.compare.scenarios.families import FAMILIES, generate, get_family
from assignment_oracle.optimal.request import BALANCE_DEFINITIONS, Request
from assignment_oracle.problem.joining import KEY as JOINING
from assignment_oracle.problem.kinds import kind_named
from assignment_oracle.problem.model import BALANCE, BALANCE_FIRST, RACK, STICKINESS, STICKINESS_FIRST, Problem

__all__ = [
    "CONSUMER_EVENTS",
    "event_lists",
    "joiner",
    "member_leaves",
    "no_event",
    "pick",
    "play_events",
    "problems",
    "rebalances",
    "requests",
    "scenarios",
]


# -- scenario families -----------------------------------------------------------


@dataclass(frozen=True)
class _Bounds:
    """The strategy's size limits, shared by every family's draw."""

    members: int
    topics: int
    partitions: int
    previous: bool


def _partition_range(draw, bounds: _Bounds) -> tuple[int, int]:
    low = draw(st.integers(1, bounds.partitions))
    return (low, draw(st.integers(low, bounds.partitions)))


def _quarter(draw) -> float:
    """A probability among 0.25, 0.5, 0.75, 1 (readable in a failing example; shrinks to 0.25)."""
    return draw(st.integers(1, 4)) / 4


def _uniform(draw, bounds: _Bounds) -> dict:
    return {"topics": draw(st.integers(1, bounds.topics)), "partitions": draw(st.integers(1, bounds.partitions))}


def _random_subsets(draw, bounds: _Bounds) -> dict:
    return {
        "topics": draw(st.integers(1, bounds.topics)),
        "partitions": _partition_range(draw, bounds),
        "subscribe": _quarter(draw),
    }


def _skewed_sizes(draw, bounds: _Bounds) -> dict:
    median = draw(st.integers(1, bounds.partitions))
    return {
        "topics": draw(st.integers(1, bounds.topics)),
        "median": median,
        "max_partitions": draw(st.integers(median, bounds.partitions)),
        "sigma": draw(st.integers(0, 4)) / 2,
        "subscribe": _quarter(draw),
    }


def _zipf(draw, bounds: _Bounds) -> dict:
    return {
        "topics": draw(st.integers(1, bounds.topics)),
        "partitions": _partition_range(draw, bounds),
        "exponent": draw(st.integers(0, 4)) / 2,
        "top": _quarter(draw),
    }


def _kip49_rolling(draw, bounds: _Bounds) -> dict:
    return {
        "topics": draw(st.integers(1, bounds.topics)),
        "new_topics": draw(st.integers(1, bounds.topics)),
        "partitions": _partition_range(draw, bounds),
    }


def _stream_join(draw, bounds: _Bounds) -> dict:
    return {
        "pairs": draw(st.integers(1, max(1, bounds.topics // 2))),
        "partitions": _partition_range(draw, bounds),
        "extra_partitions": draw(st.integers(0, 2)),
    }


def _join_groups(draw, bounds: _Bounds) -> dict:
    groups = draw(st.integers(1, max(1, bounds.topics // 2)))
    return {
        "groups": groups,
        "group_size": 2,
        "topics": draw(st.integers(1, max(1, bounds.topics - 2 * groups))),
        "partitions": _partition_range(draw, bounds),
        "subscribe": _quarter(draw),
    }


def _weighted(draw, bounds: _Bounds) -> dict:
    return {
        "topics": draw(st.integers(1, bounds.topics)),
        "partitions": _partition_range(draw, bounds),
        "subscribe": _quarter(draw),
        "lag_median": draw(st.sampled_from([1, 10, 1000])),
        "lag_sigma": draw(st.integers(0, 4)) / 2,
    }


def _racks(draw, bounds: _Bounds) -> dict:
    return {
        "topics": draw(st.integers(1, bounds.topics)),
        "partitions": _partition_range(draw, bounds),
        "subscribe": _quarter(draw),
        "racks": draw(st.integers(1, 3)),
    }


# Family name -> its parameters' draw; every registered family has one (checked by the tests).
_FAMILY_DRAWS: dict[str, Callable[[Any, _Bounds], dict]] = {
    "uniform": _uniform,
    "random-subsets": _random_subsets,
    "skewed-sizes": _skewed_sizes,
    "zipf": _zipf,
    "kip49-rolling": _kip49_rolling,
    "stream-join": _stream_join,
    "join-groups": _join_groups,
    "weighted": _weighted,
    "racks": _racks,
}


def scenarios(
    family: str | Iterable[str] | None = None,
    *,
    max_members: int = 6,
    max_topics: int = 4,
    max_partitions: int = 8,
    previous: bool = True,
) -> st.SearchStrategy[Problem]:
    """Problems from :func:`compare.scenarios.families.generate`: a family, its parameters and a seed.

    Parameters
    ----------
    family:
        A family name, several, or None for every family in
        :data:`compare.scenarios.families.FAMILIES` but ``join-groups`` and ``weighted``
        (their problems carry ``join_groups`` / ``weights``, which take ``optimal.solve`` to the
        staged CP-SAT model, slower than the flow: name them to draw them).
    max_members, max_topics, max_partitions:
        Upper bounds on the group size, the number of topics (stream-join:
        half as many pairs; kip49-rolling: base and new topics each) and the
        partitions per topic.  Churn keeps the group size.
    previous:
        Whether to draw a previous generation (``balanced`` or ``random``
        owners, a generation, churn).  ``kip49-rolling`` always has one: the
        rolling update starts from it.

    Examples
    --------
    ::

        @given(scenarios("kip49-rolling", max_members=4))
        def test_rolling_update(problem): ...

    The drawn call is recorded with :func:`hypothesis.note`, so a failing
    example prints ``generate('zipf', 0, members=2, ...)`` to reproduce it.
    Examples shrink towards the first family listed, fewer members, topics
    and partitions, no previous generation and seed 0.
    """
    names = _family_names(family)
    for name, value in (("max_members", max_members), ("max_topics", max_topics), ("max_partitions", max_partitions)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"scenarios: {name} must be a positive integer, got {value!r}")
    return _scenarios(names, _Bounds(max_members, max_topics, max_partitions, bool(previous)))


def _family_names(family: str | Iterable[str] | None) -> tuple[str, ...]:
    if family is None:
        return tuple(name for name in FAMILIES if name not in ("join-groups", "weighted"))
    names = (family,) if isinstance(family, str) else tuple(family)
    if not names:
        raise InvalidArgument("scenarios: family must name at least one family")
    for name in names:
        get_family(name)  # UnknownFamily lists the known ones
    return names


@st.composite
def _scenarios(draw, names: tuple[str, ...], bounds: _Bounds) -> Problem:
    name = draw(st.sampled_from(names))
    members = draw(st.integers(1, bounds.members))
    params = {"members": members, **_FAMILY_DRAWS[name](draw, bounds)}
    if name == "kip49-rolling":
        params["previous"] = draw(st.sampled_from(["balanced", "random"]))
        params["updated"] = draw(st.integers(0, members))
    elif bounds.previous:
        params["previous"] = draw(st.sampled_from([None, "balanced", "random"]))
    if params.get("previous") is not None and bounds.previous:
        params["churn"] = draw(st.integers(0, members))
        params["generation"] = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    note(f"generate({name!r}, {seed}, {', '.join(f'{k}={v!r}' for k, v in params.items())})")
    return generate(name, seed, **params)


# -- hand-rolled problems (moved from tests/strategies.py, draws unchanged) -----------

#: Every objective order: the three tiers in any order, or balance and stickiness without rack.
RACK_OBJECTIVES: tuple[tuple[str, ...], ...] = tuple(itertools.permutations((BALANCE, RACK, STICKINESS))) + (
    (BALANCE, STICKINESS),
    (STICKINESS, BALANCE),
)


@st.composite
def problems(
    draw,
    *,
    max_topics: int = 3,
    max_partitions: int = 3,
    max_members: int = 4,
    max_assignments: int | None = 4096,
    objectives=(BALANCE_FIRST, STICKINESS_FIRST),
    racks: bool = False,
) -> Problem:
    """Groups with differing subscriptions, stale and conflicting claims.

    Claims include partitions that do not exist, topics that do not exist and
    topics the member does not subscribe to; generations include "not sent".
    With ``racks``, members may have a rack (of 3, or none), topics may have
    replica racks (0 to 2 per partition, or none per topic), and the objective is any
    order of the tiers, rack optional (:data:`RACK_OBJECTIVES`); draws without
    ``racks`` are unchanged.
    With ``max_assignments`` set, only problems whose valid assignments can be
    enumerated within that many are drawn.  Shrinks towards fewer topics,
    members, partitions and claims.
    """
    topic_names = [f"t{i}" for i in range(draw(st.integers(1, max_topics)))]
    topics = {t: draw(st.integers(1, max_partitions)) for t in topic_names}
    member_ids = [f"c{i}" for i in range(draw(st.integers(1, max_members)))]
    members = {}
    for m in member_ids:
        subscribed = draw(st.lists(st.sampled_from(topic_names + ["gone"]), unique=True, max_size=len(topic_names) + 1))
        owned = draw(
            st.dictionaries(
                st.sampled_from(topic_names + ["gone"]),
                st.lists(st.integers(0, max_partitions), max_size=3),
                max_size=2,
            )
        )
        entry: dict = {"topics": subscribed}
        if owned:
            entry["owned"] = owned
            generation = draw(st.one_of(st.none(), st.integers(0, 3)))
            if generation is not None:
                entry["generation"] = generation
        members[m] = entry
    objective = draw(st.sampled_from(objectives))
    if racks:
        rack_names = ["a", "b", "c"]
        for m in member_ids:
            rack = draw(st.sampled_from([None, *rack_names]))
            if rack is not None:
                members[m]["rack"] = rack
        for t in topic_names:
            if draw(st.integers(0, 3)):  # mostly with racks
                topics[t] = {
                    "partitions": topics[t],
                    "racks": [
                        draw(st.lists(st.sampled_from(rack_names), max_size=2, unique=True)) for _ in range(topics[t])
                    ],
                }
        objective = draw(st.sampled_from(RACK_OBJECTIVES))
    problem = Problem.from_mapping({"topics": topics, "members": members, "objective": list(objective)})
    if max_assignments is not None:
        size = 1
        for t in problem.topics:
            size *= max(1, len(problem.subscribers[t.name])) ** t.partitions
        if size > max_assignments:
            assume(False)
    return problem


@st.composite
def rebalances(
    draw,
    *,
    max_topics: int = 4,
    max_partitions: int = 8,
    max_members: int = 6,
    identical: bool | None = None,
) -> Problem:
    """A rebalance after a real previous generation, the way sticky assignors meet them.

    A previous group owned a valid assignment (each partition to a random
    subscriber, at generation ``g``); then members left, joined, changed
    subscriptions, and some rejoin with stale claims from generation ``g-1``
    (a zombie still claiming what the group since gave to others) or claim
    a partition at the same generation as its owner.  ``identical`` forces
    (True) or forbids (False) identical subscriptions; None draws either.
    """
    topic_names = [f"t{i}" for i in range(draw(st.integers(1, max_topics)))]
    topics = {t: draw(st.integers(1, max_partitions)) for t in topic_names}
    member_ids = [f"m{i}" for i in range(draw(st.integers(1, max_members)))]
    if identical is None:
        identical = draw(st.booleans())
    if identical:
        shared = draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True))
        subscriptions = {m: list(shared) for m in member_ids}
    else:
        subscriptions = {m: draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True)) for m in member_ids}
    generation = draw(st.integers(1, 5))
    owned: dict[str, dict[str, list[int]]] = {m: {} for m in member_ids}
    for t, count in topics.items():
        subscribers = [m for m in member_ids if t in subscriptions[m]]
        for p in range(count):
            if subscribers and draw(st.integers(0, 9)) > 0:
                owned[draw(st.sampled_from(subscribers))].setdefault(t, []).append(p)
    members = {m: {"topics": subscriptions[m], "owned": owned[m], "generation": generation} for m in member_ids}
    # Membership changes: some leave (their claims vanish), some join fresh.
    leaving = draw(st.lists(st.sampled_from(member_ids), unique=True, max_size=max(0, len(member_ids) - 1)))
    for m in leaving:
        del members[m]
    for i in range(draw(st.integers(0, 2))):
        topics_new = (
            list(subscriptions[member_ids[0]])
            if identical
            else draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True))
        )
        members[f"n{i}"] = {"topics": topics_new}
    # Stale or conflicting claims: a member also claims someone else's partitions.
    if not identical and members and draw(st.booleans()):
        m = draw(st.sampled_from(sorted(members)))
        members[m]["topics"] = draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True))
    if draw(st.booleans()) and len(members) >= 2:
        zombie = draw(st.sampled_from(sorted(members)))
        victim_partitions = [
            (t, p)
            for other, e in members.items()
            if other != zombie
            for t, ps in e.get("owned", {}).items()
            for p in ps
        ]
        if victim_partitions:
            extra = draw(st.lists(st.sampled_from(victim_partitions), min_size=1, max_size=3, unique=True))
            claims = members[zombie].setdefault("owned", {})
            for t, p in extra:
                claims.setdefault(t, []).append(p)
            members[zombie]["generation"] = generation - draw(st.integers(0, 1))  # stale (g-1) or tied (g)
    return Problem.from_mapping({"topics": topics, "members": members})


#: Every order of the tiers: balance and stickiness, with rack, spread, both or neither.
ORDERS = tuple(
    order
    for extra in ((), ("rack",), ("spread",), ("rack", "spread"))
    for order in itertools.permutations(("balance", "stickiness", *extra))
)


@st.composite
def requests(draw, max_assignments: int = 3000):
    """``(problem, request)``: a tiny group with racks, maybe weights, maybe a join group, and a
    :class:`~assignment_oracle.optimal.Request` -- any order of the tiers (``ORDERS``), any balance
    definition, maybe a budget of moves in all and per member.  At most ``max_assignments`` ways to
    give out the partitions, so a brute force can check every answer."""
    base = draw(problems(max_topics=3, max_partitions=3, max_members=3, max_assignments=None, racks=True))
    data = base.to_mapping()
    names = [t.name for t in base.topics]
    if len(names) >= 2 and draw(st.booleans()):
        data["join_groups"] = [
            sorted(draw(st.lists(st.sampled_from(names), min_size=2, max_size=len(names), unique=True)))
        ]
    if draw(st.booleans()):
        listed = draw(st.lists(st.sampled_from(names), unique=True))
        data["weights"] = {
            t: draw(st.lists(st.integers(0, 4), min_size=base.partition_counts[t], max_size=base.partition_counts[t]))
            for t in listed
        }
    problem = Problem.from_mapping(data)
    size = 1
    for t in problem.topics:
        size *= max(1, len(problem.subscribers[t.name])) ** t.partitions
    assume(size <= max_assignments)
    request = Request(
        objective=draw(st.sampled_from(ORDERS)),
        balance=draw(st.sampled_from(BALANCE_DEFINITIONS)),
        max_moves=draw(st.one_of(st.none(), st.integers(0, 3))),
        max_moves_per_member=draw(st.one_of(st.none(), st.integers(0, 2))),
    )
    return problem, request


# -- hostile events: what broke real assignors, as edits of a JSON scenario ----------------------------------

#: One hostile event: ``(what, a, b)``, two small whole numbers choosing the member, topic and partition it
#: touches (taken modulo what the group has, so every event applies to every group).
Event = tuple[str, int, int]
#: The largest ``a`` and ``b`` drawn (a group of the default draws has at most 5 members, 4 topics).
EVENT_CHOICES = 7


def event_lists(names: tuple[str, ...], *, max_events: int) -> st.SearchStrategy[list[Event]]:
    """Lists of up to ``max_events`` events named in ``names`` (``"none"`` first).  Shrinks towards no event,
    then ``"none"``, then the first member, topic and partition."""
    event = st.tuples(st.sampled_from(names), st.integers(0, EVENT_CHOICES), st.integers(0, EVENT_CHOICES))
    return st.lists(event, max_size=max_events)


def play_events(scenario: dict, events: Iterable[Event], table: dict[str, Callable], label: str) -> dict:
    """``scenario`` (left as it is) with each event of ``events`` applied in turn by ``table[what](scenario, a,
    b, name)``; ``name`` is unique per event (``label`` and its index), for whatever the event adds.  A member
    added last is the one joining (``"joining"``), unless it left again."""
    out = copy.deepcopy(scenario)
    out.pop(JOINING, None)
    for index, (what, a, b) in enumerate(events):
        added = table[what](out, a, b, f"{label}{index}")
        if added is not None:
            out[JOINING] = added
    if out.get(JOINING) not in out["members"]:
        out.pop(JOINING, None)
    return out


def pick(names: Iterable[str], index: int) -> str | None:
    """The ``index``-th of ``names`` in sorted order, modulo their number (None: there is none)."""
    ordered = sorted(names)
    return ordered[index % len(ordered)] if ordered else None


def _count(spec: Any) -> int:
    return spec if isinstance(spec, int) else spec["partitions"]


def _claim(entry: dict, topic: str, p: int) -> None:
    owned = entry.setdefault("owned", {}).setdefault(topic, [])
    if p not in owned:
        owned.append(p)


def _subscribe(entry: dict, topic: str) -> None:
    if topic not in entry["topics"]:
        entry["topics"].append(topic)


def no_event(scenario: dict, a: int, b: int, name: str) -> None:
    """Nothing happens."""
    return None


def member_leaves(scenario: dict, a: int, b: int, name: str) -> None:
    """A member leaves (while another stays): its claims are gone with it."""
    members = scenario["members"]
    if len(members) > 1:
        del members[pick(members, a)]


def joiner(kind: str) -> Callable[[dict, int, int, str], str]:
    """The ``join`` event of a kind: a member ``joined-NAME`` joins like the ``a``-th member (the kind's
    ``joining_like``: its subscription, process or rack), with nothing of its own; it is the one joining."""
    like = kind_named(kind).joining_like

    def join(scenario: dict, a: int, b: int, name: str) -> str:
        members = scenario["members"]
        model = pick(members, a)
        joined = f"joined-{name}"
        members[joined] = like(members[model]) if model is not None else _fresh(scenario, kind)
        return joined

    return join


def _fresh(scenario: dict, kind: str) -> dict:
    """A member joining an empty group: on the first topic (a Streams group: on a process of its own)."""
    if kind == "streams":
        return {"process": "process-0"}
    return {"topics": list(scenario["topics"])[:1]}


def _zombie(mode: str) -> Callable[[dict, int, int, str], str | None]:
    """Two members claim one partition: its owner at generation ``g``, and a zombie at ``g - 1`` (``older``),
    at ``g`` too (``equal``, KAFKA-12984) or without a generation (``none``, aiokafka #1176); both subscribe to
    the topic.  A group of one gains the zombie (a member evicted that rejoins, KAFKA-7026)."""

    def zombie(scenario: dict, a: int, b: int, name: str) -> str | None:
        members, topics = scenario["members"], scenario["topics"]
        topic = pick(topics, a)
        if topic is None:
            return None
        p = b % _count(topics[topic])
        added = None
        if len(members) < 2:
            added = f"zombie-{name}"
            members[added] = {"topics": [topic]}
        claimants = sorted(m for m, e in members.items() if p in (e.get("owned") or {}).get(topic, ()))
        owner = claimants[0] if claimants else pick(members, a + b)
        others = [m for m in sorted(members) if m != owner]
        zombie_id = others[b % len(others)]
        generation = max(1, members[owner].get("generation") or 0)
        for member_id in (owner, zombie_id):
            _subscribe(members[member_id], topic)
            _claim(members[member_id], topic, p)
        members[owner]["generation"] = generation
        if mode == "none":
            members[zombie_id].pop("generation", None)
        else:
            members[zombie_id]["generation"] = generation - (mode == "older")
        return added

    return zombie


def _static_rejoin(scenario: dict, a: int, b: int, name: str) -> str | None:
    """A static member (KIP-345) restarts and rejoins under a new member id: same ``instance_id``, same
    subscription, same claims at the same generation; it is the one joining."""
    members = scenario["members"]
    before = pick(members, a)
    if before is None:
        return None
    entry = members.pop(before)
    if entry.get("instance_id") is None:
        entry["instance_id"] = f"instance-{name}"
    rejoined = f"rejoined-{name}"
    members[rejoined] = entry
    return rejoined


def _add_partitions(scenario: dict, a: int, b: int, name: str) -> None:
    """One or two partitions added to a topic (its replicas' racks unknown, weight 1); a topic of a join group
    is left alone (its co-partitioning would break)."""
    topics = scenario["topics"]
    joined = {t for group in scenario.get("join_groups", ()) for t in group}
    topic = pick(set(topics) - joined, a)
    if topic is None:
        return
    more = 1 + b % 2
    spec = topics[topic]
    if isinstance(spec, int):
        topics[topic] = spec + more
    else:
        spec["partitions"] += more
        if spec.get("racks") is not None:
            spec["racks"] = list(spec["racks"]) + [[] for _ in range(more)]
    if topic in scenario.get("weights", {}):
        scenario["weights"][topic] = list(scenario["weights"][topic]) + [1] * more


def _delete_topic(scenario: dict, a: int, b: int, name: str) -> None:
    """A topic deleted: gone from the metadata, while members still subscribe to it and still claim its
    partitions."""
    topics = scenario["topics"]
    topic = pick(topics, a)
    if topic is None:
        return
    del topics[topic]
    scenario.get("weights", {}).pop(topic, None)
    if "join_groups" in scenario:
        groups = [[t for t in group if t != topic] for group in scenario["join_groups"]]
        scenario["join_groups"] = [g for g in groups if len(g) >= 2]


def _unsubscribe(scenario: dict, a: int, b: int, name: str) -> None:
    """A member resubscribes without a topic it still claims partitions of (it keeps claiming them)."""
    members, topics = scenario["members"], scenario["topics"]
    member_id = pick(members, a)
    if member_id is None:
        return
    entry = members[member_id]
    claimed = sorted(t for t, ps in (entry.get("owned") or {}).items() if ps)
    topic = claimed[b % len(claimed)] if claimed else pick(topics, b)
    if topic is None:
        return
    if not claimed:
        _claim(entry, topic, 0)
        entry.setdefault("generation", 1)
    entry["topics"] = [t for t in entry["topics"] if t != topic]


def _missing_topic(scenario: dict, a: int, b: int, name: str) -> None:
    """A member subscribes to a topic the metadata does not have (not created yet, or deleted), and with an
    odd ``b`` claims a partition of it."""
    member_id = pick(scenario["members"], a)
    if member_id is None:
        return
    entry = scenario["members"][member_id]
    topic = f"missing-{name}"
    _subscribe(entry, topic)
    if b % 2:
        _claim(entry, topic, 0)


def _empty_subscription(scenario: dict, a: int, b: int, name: str) -> str | None:
    """A member subscribed to nothing: an existing one drops every topic (keeping its claims), or, with an odd
    ``b``, one joins so (KAFKA-16930)."""
    members = scenario["members"]
    member_id = pick(members, a)
    if member_id is None or b % 2:
        joined = f"idle-{name}"
        members[joined] = {"topics": []}
        return joined
    members[member_id]["topics"] = []
    return None


def _subscribe_toggle(scenario: dict, a: int, b: int, name: str) -> None:
    """Heterogeneous subscriptions: a member subscribes to a topic it did not, or drops one it did."""
    member_id, topic = pick(scenario["members"], a), pick(scenario["topics"], b)
    if member_id is None or topic is None:
        return
    entry = scenario["members"][member_id]
    if topic in entry["topics"]:
        entry["topics"] = [t for t in entry["topics"] if t != topic]
    else:
        entry["topics"].append(topic)


def _claim_gone(scenario: dict, a: int, b: int, name: str) -> None:
    """A member claims a partition its topic no longer has (past the count: a topic deleted and created again
    with fewer partitions), at its generation."""
    member_id, topic = pick(scenario["members"], a), pick(scenario["topics"], b)
    if member_id is None or topic is None:
        return
    entry = scenario["members"][member_id]
    _subscribe(entry, topic)
    _claim(entry, topic, _count(scenario["topics"][topic]) + b % 2)


def _rack(scenario: dict, a: int, b: int, name: str) -> None:
    """Racks (KIP-881): a topic's replicas get racks if they had none, and a member gets a rack that holds a
    replica of the topic's first partition (even ``b``) or one that holds none (odd ``b``)."""
    member_id, topic = pick(scenario["members"], a), pick(scenario["topics"], b)
    if member_id is None or topic is None:
        return
    spec = scenario["topics"][topic]
    count = _count(spec)
    if isinstance(spec, int) or spec.get("racks") is None:
        spec = {**({} if isinstance(spec, int) else spec), "partitions": count}
        spec["racks"] = [[f"rack-{p % 2}"] for p in range(count)]
        scenario["topics"][topic] = spec
    first = spec["racks"][0]
    scenario["members"][member_id]["rack"] = first[0] if first and b % 2 == 0 else f"rack-none-{name}"


#: The consumer group's events, ``"none"`` first (what a list of events shrinks to).
CONSUMER_EVENTS: dict[str, Callable[[dict, int, int, str], str | None]] = {
    "none": no_event,
    "leave": member_leaves,
    "join": joiner("consumer"),
    "zombie-older": _zombie("older"),
    "zombie-equal": _zombie("equal"),
    "zombie-no-generation": _zombie("none"),
    "static-rejoin": _static_rejoin,
    "add-partitions": _add_partitions,
    "delete-topic": _delete_topic,
    "unsubscribe": _unsubscribe,
    "missing-topic": _missing_topic,
    "empty-subscription": _empty_subscription,
    "subscribe": _subscribe_toggle,
    "claim-gone": _claim_gone,
    "rack": _rack,
}
