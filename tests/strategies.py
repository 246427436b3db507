"""Hypothesis strategies for problems, sized for brute force or for model cross-checks."""

from __future__ import annotations

from hypothesis import strategies as st

from problem.model import BALANCE_FIRST, STICKINESS_FIRST, Problem


@st.composite
def problems(
    draw,
    *,
    max_topics: int = 3,
    max_partitions: int = 3,
    max_members: int = 4,
    max_assignments: int | None = 4096,
    objectives=(BALANCE_FIRST, STICKINESS_FIRST),
) -> Problem:
    """Groups with differing subscriptions, stale and conflicting claims.

    Claims include partitions that do not exist, topics that do not exist and
    topics the member does not subscribe to; generations include "not sent".
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
    problem = Problem.from_mapping({"topics": topics, "members": members, "objective": list(objective)})
    if max_assignments is not None:
        size = 1
        for t in problem.topics:
            size *= max(1, len(problem.subscribers[t.name])) ** t.partitions
        if size > max_assignments:
            from hypothesis import assume

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
        subscriptions = {
            m: draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True)) for m in member_ids
        }
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
        topics_new = list(subscriptions[member_ids[0]]) if identical else draw(
            st.lists(st.sampled_from(topic_names), min_size=1, unique=True))
        members[f"n{i}"] = {"topics": topics_new}
    # Stale or conflicting claims: a member also claims someone else's partitions.
    if not identical and members and draw(st.booleans()):
        m = draw(st.sampled_from(sorted(members)))
        members[m]["topics"] = draw(st.lists(st.sampled_from(topic_names), min_size=1, unique=True))
    if draw(st.booleans()) and len(members) >= 2:
        zombie = draw(st.sampled_from(sorted(members)))
        victim_partitions = [(t, p) for other, e in members.items() if other != zombie for t, ps in e.get("owned", {}).items() for p in ps]
        if victim_partitions:
            extra = draw(st.lists(st.sampled_from(victim_partitions), min_size=1, max_size=3, unique=True))
            claims = members[zombie].setdefault("owned", {})
            for t, p in extra:
                claims.setdefault(t, []).append(p)
            members[zombie]["generation"] = generation - draw(st.integers(0, 1))  # stale (g-1) or tied (g)
    return Problem.from_mapping({"topics": topics, "members": members})
