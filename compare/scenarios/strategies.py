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

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from hypothesis import assume, note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from assignment_oracle.compare.scenarios.families import FAMILIES, generate, get_family
from assignment_oracle.optimal.request import BALANCE_DEFINITIONS, Request
from assignment_oracle.problem.model import BALANCE, BALANCE_FIRST, RACK, STICKINESS, STICKINESS_FIRST, Problem

__all__ = ["problems", "rebalances", "requests", "scenarios"]


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
