"""Validity: every violation kind is named."""

from assignment_oracle.problem import Assignment, Problem
from assignment_oracle.problem.ownership import violations

P = Problem.from_mapping(
    {
        "topics": {"t": 3, "u": 1, "nobody": 2},
        "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t", "u"]}},
    }
)


def kinds(assignment):
    return {(v.kind, v.member_id, v.topic, v.partitions) for v in violations(P, assignment)}


def test_valid_assignment_has_no_violations():
    assert kinds(Assignment({"a": {"t": (0, 1)}, "b": {"t": (2,), "u": (0,)}})) == set()


def test_each_kind_is_reported():
    found = kinds(
        Assignment(
            {
                "a": {"t": (0, 0, 9), "u": (0,), "nobody": (1,), "ghost": (0,)},
                "zed": {"t": (1,)},
            }
        )
    )
    assert found == {
        ("duplicated", None, "t", (0,)),
        ("unknown", "a", "t", (9,)),
        ("not-subscribed", "a", "u", (0,)),
        ("not-subscribed", "a", "nobody", (1,)),
        ("unknown", "a", "ghost", (0,)),
        ("unknown", "zed", "t", (1,)),
        ("missing", None, "t", (1, 2)),
    }


def test_negative_partition_numbers_are_unknown_not_wrapped():
    # Through the Python API nothing stops a -1; it must not count as the last partition.
    found = kinds(Assignment({"a": {"t": (0, 1)}, "b": {"t": (-1,), "u": (0,)}}))
    assert ("unknown", "b", "t", (-1,)) in found
    assert ("missing", None, "t", (2,)) in found


# -- the vectorised validity check against a plain per-member reference ------------------------------------------

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from assignment_oracle.problem.metrics import load_vector, per_topic_spread, retained  # noqa: E402
from assignment_oracle.problem.ownership import Violation, owner_arrays  # noqa: E402


def reference_owner_arrays(problem, assignment):
    """Member by member, topic by topic, in plain Python (the rule as docs/formats.md states it)."""
    counts = problem.partition_counts
    index = problem.member_index
    owners = {t.name: [-1] * t.partitions for t in problem.topics}
    seen = {t.name: [0] * t.partitions for t in problem.topics}
    found = []
    for member_id in sorted(assignment.members):
        topics = dict(assignment.members[member_id])
        for holder, topic in assignment.listed_empty:  # listed with [] (not rows)
            if holder == member_id:
                topics.setdefault(topic, ())
        if member_id not in index and not any(topics.values()):  # an invented member, whatever it holds
            found.append(Violation("unknown", "", (), member_id, "not a member of the group"))
            continue
        for topic in sorted(topics):
            given = sorted(topics[topic])
            if not given:
                if member_id in index and topic not in counts:  # an invented topic, holding nothing
                    found.append(Violation("unknown", topic, (), member_id, "no such topic"))
                continue
            if member_id not in index:
                found.append(Violation("unknown", topic, tuple(given), member_id, "not a member of the group"))
                continue
            if topic not in counts:
                found.append(Violation("unknown", topic, tuple(given), member_id, "no such topic"))
                continue
            beyond = [p for p in given if not 0 <= p < counts[topic]]
            if beyond:
                found.append(
                    Violation("unknown", topic, tuple(beyond), member_id, f"the topic has {counts[topic]} partitions")
                )
            inside = [p for p in given if 0 <= p < counts[topic]]
            if topic not in problem.members[index[member_id]].topics:
                found.append(Violation("not-subscribed", topic, tuple(inside), member_id))
            for p in inside:
                seen[topic][p] += 1
                owners[topic][p] = index[member_id]
    for topic in problem.topics:
        twice = tuple(p for p, n in enumerate(seen[topic.name]) if n > 1)
        if twice:
            found.append(Violation("duplicated", topic.name, twice, None, "assigned more than once"))
        never = tuple(p for p, n in enumerate(seen[topic.name]) if n == 0)
        if problem.subscribers[topic.name] and never:
            found.append(Violation("missing", topic.name, never))
    return owners, tuple(found)


@st.composite
def problems_and_assignments(draw):
    topics = {f"t{i}": draw(st.integers(1, 4)) for i in range(draw(st.integers(1, 3)))}
    members = {}
    for m in range(draw(st.integers(1, 4))):
        subscribed = draw(st.lists(st.sampled_from(sorted(topics)), unique=True, max_size=len(topics)))
        owned = {
            t: draw(st.lists(st.integers(0, 5), max_size=3))
            for t in draw(st.lists(st.sampled_from(sorted(topics) + ["gone"]), unique=True, max_size=2))
        }
        members[f"m{m}"] = {"topics": subscribed, "owned": owned, "generation": draw(st.integers(1, 2))}
    problem = Problem.from_mapping({"topics": topics, "members": members})
    names = sorted(members) + ["stranger"]
    assignment = draw(
        st.dictionaries(
            st.sampled_from(names),
            st.dictionaries(
                st.sampled_from(sorted(topics) + ["nope"]), st.lists(st.integers(-1, 5), max_size=4), max_size=3
            ),
            max_size=5,
        )
    )
    return problem, Assignment(assignment)


@settings(max_examples=400, deadline=None)
@given(problems_and_assignments())
def test_owner_arrays_and_violations_match_the_per_member_reference(case):
    problem, assignment = case
    owners, found = owner_arrays(problem, assignment)
    expected_owners, expected = reference_owner_arrays(problem, assignment)
    assert found == expected
    if not found:
        assert {t: a.tolist() for t, a in owners.items()} == expected_owners


@settings(max_examples=400, deadline=None)
@given(problems_and_assignments())
def test_loads_retained_and_spread_match_plain_counting(case):
    from assignment_oracle.problem.claims import resolve_claims

    problem, assignment = case
    members = assignment.members
    assert load_vector(problem, assignment) == tuple(
        sum(len(ps) for ps in members.get(m, {}).values()) for m in problem.member_ids
    )
    previous = resolve_claims(problem).previous_owner
    kept = {
        (t, p)
        for m, ts in members.items()
        if m in problem.member_index
        for t, ps in ts.items()
        if t in previous
        for p in ps
        if 0 <= p < previous[t].size and previous[t][p] == problem.member_index[m]
    }
    assert retained(problem, assignment) == len(kept)
    spread = {}
    for topic in problem.assignable_topics:
        held = [
            len(members.get(problem.member_ids[m], {}).get(topic.name, ())) for m in problem.subscribers[topic.name]
        ]
        spread[topic.name] = int(np.ptp(held))
    assert per_topic_spread(problem, assignment) == spread
