"""The sticky port's internals against literal transcriptions of Kafka's code.

The port answers ``isBalanced`` and "least-loaded member that can take p"
from per-topic orders instead of Kafka's rescans; these tests run the literal
rescans next to it on every call and demand the same answers.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_profile import scaled
from strategies import problems, rebalances

from assignment_oracle.heuristics import sticky, sticky_kafka
from assignment_oracle.heuristics.sticky import _Rebalance
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations


def literal_is_balanced(run: _Rebalance) -> bool:
    """Kafka 2.3 ``StickyAssignor.isBalanced``, transcribed over the active members."""
    loads = sorted(run.load[m] for m in run.active)
    if loads[0] >= loads[-1] - 1:
        return True
    holder = {p: m for m in run.active for p in run.held[m]}
    for c in run.active:
        if run.load[c] == run.potential[c]:
            continue
        for t in run.member_topics[c]:
            for p in range(run.offset[t], run.offset[t + 1]):
                if p not in run.held[c] and p in holder and run.load[c] < run.load[holder[p]]:
                    return False
    return True


@pytest.fixture
def literal_checks(monkeypatch):
    calls = {"balanced": 0, "lightest": 0}
    fast_is_balanced = _Rebalance._is_balanced

    def checked_is_balanced(self):
        got = fast_is_balanced(self)
        assert got == literal_is_balanced(self)
        calls["balanced"] += 1
        return got

    fast_reassign = _Rebalance._reassign

    def checked_reassign(self, p, new):
        # Kafka: the first member in (load, id) order that can take p; or the remembered previous owner.
        t = self.topic_of[p]
        eligible = sorted((self.load[m], m) for m in self.active if t in self.member_topics[m])
        assert new == self.previous.get(p) or (self.load[new], new) == eligible[0]
        calls["lightest"] += 1
        return fast_reassign(self, p, new)

    monkeypatch.setattr(_Rebalance, "_is_balanced", checked_is_balanced)
    monkeypatch.setattr(_Rebalance, "_reassign", checked_reassign)
    return calls


@settings(max_examples=scaled(300), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=st.one_of(rebalances(max_members=7, max_partitions=10), problems(max_assignments=None)))
def test_fast_structures_agree_with_kafkas_rescans(literal_checks, problem):
    # The fixture only patches in checks; it holds no per-example state that matters.
    sticky.assign(problem)
    sticky.assign_kip54(problem)


def test_the_rescans_were_exercised(literal_checks):
    """Not vacuous: a rebalance that needs moves calls both checks."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 6},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1, 2, 3, 4, 5]}, "generation": 1},
                "b": {"topics": ["t"]},
                "c": {"topics": ["t"]},
            },
        }
    )
    assignment = sticky.assign(problem)
    assert sorted(assignment.load(m) for m in "abc") == [2, 2, 2]
    assert literal_checks["balanced"] > 0 and literal_checks["lightest"] == 4


def test_previous_owner_pulls_a_partition_back():
    """KIP-341: the next-highest claim is remembered.  a (generation 3) holds
    t-0..3; b's older claim on t-0 (generation 2) makes b its previous owner.
    t-0 is the first partition step 4 looks at, a is 2+ heavier than b, so
    t-0 goes back to b, although c is lighter still."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4, "u": 1},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1, 2, 3]}, "generation": 3},
                "b": {"topics": ["t", "u"], "owned": {"t": [0], "u": [0]}, "generation": 2},
                "c": {"topics": ["t"]},
            },
        }
    )
    assignment = sticky.assign(problem)
    assert assignment.to_mapping()["b"] == {"t": [0], "u": [0]}
    assert violations(problem, assignment) == ()


def test_a_tie_at_the_top_generation_owns_nothing():
    """KAFKA-14639: two claims at the same, highest generation cancel; the
    partition is handed out like an unowned one, and is not assigned twice."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 2},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 4},
                "b": {"topics": ["t"], "owned": {"t": [1]}, "generation": 4},
            },
        }
    )
    got = sticky.assign(problem).to_mapping()
    assert got == {"a": {"t": [0]}, "b": {"t": [1]}}


def test_a_loop_that_does_not_end_is_reported():
    """Step 4's bound: with ``max_passes=1`` a rebalance that needs a second pass stops with a clear error."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 8},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": list(range(8))}, "generation": 1},
                "b": {"topics": ["t"]},
                "c": {"topics": ["t"]},
                "d": {"topics": ["t"]},
            },
        }
    )
    assignment = sticky.assign(problem)
    assert sorted(assignment.load(m) for m in "abcd") == [2, 2, 2, 2]
    with pytest.raises(sticky.AssignorDidNotFinish, match="after 1 passes"):
        sticky.assign(problem, max_passes=1)


def test_a_previous_owner_that_left_the_topic_is_not_replaced_by_an_older_claim():
    """t-0: a holds it at generation 3; x claimed it at generation 2 but now
    subscribes only to u; c's claim is older still (generation 1).  The
    previous owner is x, which cannot take it, so nobody pulls t-0 back:
    it goes by load, to b (found by review against Kafka 2.3)."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4, "u": 4},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 3},
                "b": {"topics": ["t"], "generation": 3},
                "c": {"topics": ["t"], "owned": {"t": [0, 3]}, "generation": 1},
                "x": {"topics": ["u"], "owned": {"t": [0], "u": [0, 1, 2]}, "generation": 2},
                "y": {"topics": ["u"], "owned": {"u": [3]}, "generation": 3},
            },
        }
    )
    got = sticky.assign(problem).to_mapping()
    assert got["a"] == {"t": [1, 2]} and got["b"] == {"t": [0]} and got["c"] == {"t": [3]}


# -- Java's order: Kafka's own code at the release ---------------------------------------------------------------
#
# Expected answers below are Kafka's Java, not the port's: each scenario was run through
# tools/kafka_differential/legacy.py's LegacyDriver (Java 17.0.15) against StickyAssignor built from the
# apache/kafka tag named (2.3.1 for ``sticky``, 2.0.1 for ``sticky-kip54``), and Kafka's assignment copied here.

KAFKA_2_3_1 = [
    pytest.param(  # README "Older releases": t0-1 (bucket 12) is listed before t0-0 (bucket 13) and moves
        {
            "topics": {"t0": 2},
            "members": {"c0": {"topics": ["t0"]}, "c1": {"topics": ["t0"], "owned": {"t0": [0, 1]}, "generation": 1}},
        },
        {"c0": {"t0": [1]}, "c1": {"t0": [0]}},
        {"c0": {"t0": [0]}, "c1": {"t0": [1]}},
        id="partition-hash-order",
    ),
    pytest.param(  # a tie at generation 4: consumer2 is iterated before consumer1 (bucket order), so it keeps t-0
        {
            "topics": {"t": 3},
            "members": {
                "consumer1": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 4},
                "consumer2": {"topics": ["t"], "owned": {"t": [0]}, "generation": 4},
                "consumer3": {"topics": ["t"], "generation": 4},
            },
        },
        {"consumer1": {"t": [1]}, "consumer2": {"t": [0]}, "consumer3": {"t": [2]}},
        {"consumer1": {"t": [2]}, "consumer2": {"t": [0]}, "consumer3": {"t": [1]}},
        id="first-claimant-at-one-generation",
    ),
    pytest.param(  # no generation (V0 user data): put(-1, consumer) overwrites, the LAST claimant iterated keeps t-0
        {
            "topics": {"t": 3},
            "members": {
                "consumer1": {"topics": ["t"], "owned": {"t": [0, 1, 2]}},
                "consumer2": {"topics": ["t"], "owned": {"t": [0]}},
                "consumer3": {"topics": ["t"]},
            },
        },
        {"consumer1": {"t": [0]}, "consumer2": {"t": [2]}, "consumer3": {"t": [1]}},
        {"consumer1": {"t": [2]}, "consumer2": {"t": [0]}, "consumer3": {"t": [1]}},
        id="last-claimant-without-generation",
    ),
    pytest.param(  # x's older claim makes it t-0's previous owner; a is 2+ heavier, so t-0 goes back to x,
        # which no longer subscribes to t: an invalid assignment, Kafka 2.3.1's own
        {
            "topics": {"t": 4, "u": 2},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1, 2, 3]}, "generation": 3},
                "b": {"topics": ["t"], "generation": 3},
                "x": {"topics": ["u"], "owned": {"t": [0]}, "generation": 2},
                "y": {"topics": ["u"], "generation": 3},
            },
        },
        {"a": {"t": [2, 3]}, "b": {"t": [1]}, "x": {"t": [0], "u": [0]}, "y": {"u": [1]}},
        {"a": {"t": [2, 3]}, "b": {"t": [0, 1]}, "x": {"u": [0]}, "y": {"u": [1]}},
        id="previous-owner-that-left-the-topic",
    ),
]


@pytest.mark.parametrize("scenario, kafka, port_sorted", KAFKA_2_3_1)
def test_sticky_in_javas_order_is_kafka_2_3_1(scenario, kafka, port_sorted):
    """Kafka 2.3.1's StickyAssignor answers (legacy.py, see above); the sorted order's differ."""
    problem = Problem.from_mapping(scenario)
    assert sticky.assign(problem, iteration_order="java").to_mapping() == kafka
    assert sticky.assign(problem, iteration_order="java", ties="first-claimant").to_mapping() == kafka
    assert sticky.assign(problem).to_mapping() == port_sorted


KAFKA_2_0_1 = [
    pytest.param(  # "d5" and "q2" share a bucket: 2.0's groupDataByTopic writes d5 first, and d5-1 moves
        {
            "topics": {"d5": 2, "q2": 6},
            "members": {
                "c0": {"topics": ["d5", "q2"]},
                "c1": {"topics": ["d5", "q2"], "owned": {"d5": [1], "q2": [0, 2, 5]}},
                "c2": {"topics": ["d5", "q2"]},
            },
        },
        {"c0": {"d5": [1], "q2": [1, 4]}, "c1": {"q2": [0, 2, 5]}, "c2": {"d5": [0], "q2": [3]}},
        {"c0": {"d5": [0, 1], "q2": [3]}, "c1": {"q2": [0, 2, 5]}, "c2": {"q2": [1, 4]}},
        id="user-data-topic-order",
    ),
    pytest.param(  # KAFKA-7026: b and c both keep t-0
        {
            "topics": {"t": 2},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [1]}},
                "b": {"topics": ["t"], "owned": {"t": [0]}},
                "c": {"topics": ["t"], "owned": {"t": [0]}},
            },
        },
        {"a": {"t": [1]}, "b": {"t": [0]}, "c": {"t": [0]}},
        {"a": {"t": [1]}, "b": {"t": [0]}, "c": {"t": [0]}},
        id="stale-claims-kept",
    ),
]


@pytest.mark.parametrize("scenario, kafka, port_sorted", KAFKA_2_0_1)
def test_sticky_kip54_in_javas_order_is_kafka_2_0_1(scenario, kafka, port_sorted):
    """Kafka 2.0.1's StickyAssignor answers (legacy.py, see above)."""
    problem = Problem.from_mapping(scenario)
    assert sticky.assign_kip54(problem, iteration_order="java").to_mapping() == kafka
    assert sticky.assign_kip54(problem).to_mapping() == port_sorted


def test_kafka_2_0_1s_exceptions_are_kept_only_when_literal():
    """2.0.1 throws NullPointerException on a subscription to a topic the cluster lacks (KAFKA-7962) and where
    a stale claimant it set aside files a partition (both seen from legacy.py's 2.0.1 build); by default the
    port answers (skipping the topic, as 2.3 does; moving from the partition's holder)."""
    missing = Problem.from_mapping({"topics": {"t0": 6}, "members": {"c0": {"topics": ["t0", "missing-topic"]}}})
    with pytest.raises(sticky_kafka.NullPointerException, match="missing-topic"):
        sticky.assign_kip54(missing, iteration_order="java", literal=True)
    assert sticky.assign_kip54(missing, iteration_order="java").to_mapping() == {"c0": {"t0": [0, 1, 2, 3, 4, 5]}}
    stale = Problem.from_mapping(
        {
            "topics": {"t0": 1, "t1": 1},
            "members": {
                "c0": {"topics": ["t0", "t1"], "owned": {"t0": [0]}},
                "c1": {"topics": []},
                "c2": {"topics": [], "owned": {"t0": [0]}},
                "c3": {"topics": ["t0"]},
            },
        }
    )
    with pytest.raises(sticky_kafka.NullPointerException, match="set aside"):
        sticky.assign_kip54(stale, iteration_order="java", literal=True)
    got = sticky.assign_kip54(stale, iteration_order="java").to_mapping()
    assert sorted(p for m in got.values() for ps in m.values() for p in ps) == [0, 0]  # t0-0 and t1-0, once each


def test_the_orders_and_tie_rules_are_checked():
    p = Problem.from_mapping({"topics": {"t": 1}, "members": {"a": {"topics": ["t"]}}})
    with pytest.raises(ValueError, match="iteration_order"):
        sticky.assign(p, iteration_order="random")
    with pytest.raises(ValueError, match="iteration_order"):
        sticky.assign_kip54(p, iteration_order="hash")
    with pytest.raises(ValueError, match="first claimant"):
        sticky.assign(p, iteration_order="java", ties="cancel")
    with pytest.raises(ValueError, match="ties"):
        sticky.assign(p, ties="last")


@settings(max_examples=scaled(200), deadline=None)
@given(problem=st.one_of(rebalances(max_members=7, max_partitions=10), problems(max_assignments=None)))
def test_the_sorted_order_is_the_default_and_javas_assigns_everything(problem):
    """``iteration_order="sorted"`` is exactly the default (its answers did not change with the keyword); Java's
    order, Kafka's code, hands out every partition someone subscribes to."""
    assert sticky.assign(problem, iteration_order="sorted").to_mapping() == sticky.assign(problem).to_mapping()
    assert (
        sticky.assign_kip54(problem, iteration_order="sorted").to_mapping() == sticky.assign_kip54(problem).to_mapping()
    )
    assert sticky.assign(problem, ties="cancel").to_mapping() == sticky.assign(problem).to_mapping()
    want = {(t.name, p) for t in problem.assignable_topics for p in range(t.partitions)}
    for assignment in (
        sticky.assign(problem, iteration_order="java"),
        sticky.assign_kip54(problem, iteration_order="java"),
    ):
        assert {(t, p) for ts in assignment.to_mapping().values() for t, ps in ts.items() for p in ps} == want
