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
