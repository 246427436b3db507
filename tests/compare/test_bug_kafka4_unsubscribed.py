"""Bug corpus ``kafka4-stale-owner-unsubscribed``: Kafka 4's sticky assignors hand a stale previous owner its old
partition back although it no longer subscribes to the topic.

The expected answer is Kafka's own: its ``StickyAssignor`` and ``CooperativeStickyAssignor``, compiled from
apache/kafka 1eb7644 and from d79bd50 and asked through ``tools/kafka_differential``'s driver, both return
``{c0: [t1-0, t2-2], c1: [t1-2, t2-0], c2: [t1-1, t2-1]}`` for this group (c1 subscribes to t2 only).
"""

from __future__ import annotations

import pytest

from assignment_oracle.compare.scenarios.bugs import BUGS, KAFKA_COMMIT, replay
from assignment_oracle.heuristics import kafka4_sticky
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations

NAME = "kafka4-stale-owner-unsubscribed"
KAFKAS_ANSWER = {"c0": {"t1": [0], "t2": [2]}, "c1": {"t1": [2], "t2": [0]}, "c2": {"t1": [1], "t2": [1]}}


def group(c1_generation: int = 2) -> dict:
    return {
        "topics": {"t1": 3, "t2": 3},
        "members": {
            "c0": {"topics": ["t1", "t2"], "owned": {"t2": [2]}, "generation": 3},
            "c1": {"topics": ["t2"], "owned": {"t1": [2]}, "generation": c1_generation},
            "c2": {"topics": ["t1", "t2"], "owned": {"t2": [1]}, "generation": 3},
        },
    }


@pytest.mark.parametrize("order", ["sorted", "java"])
@pytest.mark.parametrize("literal", [False, True])
def test_the_port_gives_kafkas_invalid_answer(order, literal):
    problem = Problem.from_mapping(group())
    assignment = kafka4_sticky.assign(problem, iteration_order=order, literal=literal)
    assert assignment.to_mapping() == KAFKAS_ANSWER
    found = [(v.kind, v.member_id, v.topic, v.partitions) for v in violations(problem, assignment)]
    assert found == [("not-subscribed", "c1", "t1", (2,))]
    first = kafka4_sticky.rebalance_cooperative(problem, iteration_order=order, literal=literal).first
    assert first.to_mapping()["c1"] == {"t1": [2], "t2": [0]}


def test_a_stale_user_data_rejoin_gets_the_same_answer_again():
    """The consumer refuses the assignment and rejoins before ``onAssignment`` runs, so it claims t1-2 at
    generation 2 again while the others claim what they got at the next generation: the same answer."""
    data = group()
    for generation in (4, 5, 6):
        answer = kafka4_sticky.assign(Problem.from_mapping(data), iteration_order="java").to_mapping()
        assert answer == KAFKAS_ANSWER
        data = {
            "topics": data["topics"],
            "members": {
                m: {**entry, "owned": answer[m], "generation": generation} if m != "c1" else entry
                for m, entry in data["members"].items()
            },
        }


def test_the_top_generation_claim_is_dropped_and_the_answer_valid():
    problem = Problem.from_mapping(group(c1_generation=3))
    assert not violations(problem, kafka4_sticky.assign(problem, iteration_order="java"))


def test_the_replay_and_the_report():
    result = replay(NAME)
    assert result.as_expected, result.finding
    report = BUGS[NAME].report
    assert KAFKA_COMMIT in report and "d79bd50" in report
    for needle in ("AbstractStickyAssignor.java:1411-1413", "prevAssignment", "consumer2AllPotentialTopics"):
        assert needle in report, needle
