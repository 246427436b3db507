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

from assignment_oracle.heuristics import sticky
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
