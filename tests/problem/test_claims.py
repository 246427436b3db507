"""Claim resolution: KIP-341 (stale claims lose) and KAFKA-14639 (equal top generations cancel)."""

import brute_force
from hypothesis import given
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.problem import Problem, resolve_claims


def owners(problem):
    resolved = resolve_claims(problem)
    ids = problem.member_ids
    return {(t, p): ids[o] for t, arr in resolved.previous_owner.items() for p, o in enumerate(arr.tolist()) if o >= 0}


def reasons(problem):
    return {(d.member_id, d.topic, d.partitions, d.reason) for d in resolve_claims(problem).dropped}


def test_stale_lower_generation_claim_loses():
    # KAFKA-7026: c1 was evicted at generation 1 and rejoins claiming t-0,
    # which generation 2 gave to c2.
    p = Problem.from_mapping(
        {
            "topics": {"t": 2},
            "members": {
                "c1": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
                "c2": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 2},
            },
        }
    )
    assert owners(p) == {("t", 0): "c2", ("t", 1): "c2"}
    assert reasons(p) == {("c1", "t", (0,), "superseded")}


def test_missing_generation_counts_as_minus_one():
    p = Problem.from_mapping(
        {
            "topics": {"t": 1},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0]}},
                "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 0},
            },
        }
    )
    assert owners(p) == {("t", 0): "b"}


def test_equal_top_generations_cancel_even_with_an_older_claim():
    p = Problem.from_mapping(
        {
            "topics": {"t": 2},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 5},
                "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 5},
                "c": {"topics": ["t"], "owned": {"t": [0]}, "generation": 4},
            },
        }
    )
    assert owners(p) == {("t", 1): "a"}
    assert reasons(p) == {
        ("a", "t", (0,), "tied"),
        ("b", "t", (0,), "tied"),
        ("c", "t", (0,), "superseded"),
    }


def test_invalid_claims_are_dropped_with_reasons():
    p = Problem.from_mapping(
        {
            "topics": {"t": 2, "u": 1},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [1, 1, 5], "u": [0], "gone": [0]}, "generation": 3},
                "b": {"topics": ["t", "u"], "owned": {"u": [0]}, "generation": 2},
            },
        }
    )
    # a's newer claim on u-0 shadows b's, then is dropped: a no longer subscribes to u.
    assert owners(p) == {("t", 1): "a"}
    assert reasons(p) == {
        ("a", "t", (1,), "duplicate"),
        ("a", "t", (5,), "no-such-partition"),
        ("a", "u", (0,), "not-subscribed"),
        ("a", "gone", (0,), "unknown-topic"),
        ("b", "u", (0,), "superseded"),
    }


@given(problems(max_assignments=None))
def test_matches_the_rule_applied_partition_by_partition(problem):
    assert owners(problem) == brute_force.previous_owners(problem)


@given(problems(max_assignments=None), st.randoms(use_true_random=False))
def test_order_of_claims_does_not_matter(problem, rnd):
    doc = problem.to_mapping()
    for member in doc["members"].values():
        for topic in member.get("owned", {}):
            rnd.shuffle(member["owned"][topic])
    names = list(doc["members"])
    rnd.shuffle(names)
    renamed = {n: doc["members"][n] for n in names}
    shuffled = Problem.from_mapping({**doc, "members": renamed})
    assert owners(shuffled) == owners(problem)


def test_claims_without_any_topics_are_dropped_not_fatal():
    p = Problem.from_mapping({"topics": {}, "members": {"a": {"topics": ["x"], "owned": {"x": [0]}}}})
    assert owners(p) == {}
    assert reasons(p) == {("a", "x", (0,), "unknown-topic")}
