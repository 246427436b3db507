"""The findings the CI oracle asserts instead of a guarantee that does not hold.

A finding is a claim some assignor is known not to keep.  Its smallest
counterexample lives in ``tests/regressions/<name>.json`` with the numbers
the oracle reported for it (``measure``); the replay test checks the numbers
still come out, so a change in an assignor, or in the oracle, shows up as a
failing regression case, not as silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from assignment_oracle.compare.judge import judge
from assignment_oracle.heuristics import get_assignor
from assignment_oracle.optimal import solve
from assignment_oracle.problem.model import Problem


def measure(problem: Problem, assignor: str) -> dict:
    """The numbers a regression case stores: the assignor's loads and stickiness against the optimum.

    An assignor that raises (a peer's bug) stores the exception instead.
    """
    try:
        assignment = get_assignor(assignor).assign(problem)
    except Exception as err:  # the finding itself: a peer that fails on a valid group
        optimum = solve(problem)
        return {
            "raises": f"{type(err).__name__}: {err}",
            "optimal_sorted_loads": list(optimum.sorted_loads),
            "optimal_retained": optimum.retained,
        }
    v = judge(problem, assignment)
    m = v.measures
    condition = v.finding("kafka-local-condition")
    return {
        "valid": v.valid,
        "sorted_loads": list(m["sorted_loads"]),
        "optimal_sorted_loads": list(m["optimal_sorted_loads"]),
        "kip54_gap": m["kip54_score"] - m["optimal_kip54_score"],
        "balance_moves": m["balance_moves"],
        "kafka_balance_condition": None if condition is None or not v.valid else condition.holds,
        "retained": m["retained"],
        "optimal_retained": m["optimal_retained"],
    }


@dataclass(frozen=True)
class Finding:
    name: str
    assignor: str
    claim: str
    test: Callable[[dict], bool]
    #: Which groups count (default: any the strategies draw).
    when: Callable[[Problem], bool] = lambda problem: True

    def holds_for(self, problem: Problem) -> bool:
        return self.when(problem) and self.test(measure(problem, self.assignor))


FINDINGS = (
    Finding(
        "roundrobin-not-most-balanced",
        "roundrobin",
        "balanced (it only promises this for identical subscriptions)",
        lambda m: m["valid"] and m["sorted_loads"] != m["optimal_sorted_loads"],
    ),
    Finding(
        "fair-greedy-not-most-balanced",
        "fair",
        "KIP-49: an equal number of partitions regardless of subscriptions",
        lambda m: m["valid"] and m["sorted_loads"] != m["optimal_sorted_loads"],
    ),
    Finding(
        "sticky-local-condition-not-most-balanced",
        "sticky",
        "as balanced as possible (Kafka's local condition holds, the optimum is better)",
        lambda m: m["valid"] and m["kafka_balance_condition"] and m["sorted_loads"] != m["optimal_sorted_loads"],
    ),
    Finding(
        "sticky-not-stickiest",
        "sticky",
        "as sticky as possible, second to balance",
        lambda m: (
            m["valid"] and m["sorted_loads"] == m["optimal_sorted_loads"] and m["retained"] < m["optimal_retained"]
        ),
    ),
    Finding(
        "kafka-python-roundrobin-raises",
        "kafka-python:roundrobin",
        "assigns any group (Kafka's RoundRobinAssignor skips members not subscribed to a topic)",
        lambda m: "raises" in m,
        # Every member subscribes to something: a realistic group, not an idle consumer.
        when=lambda problem: all(member.topics for member in problem.members),
    ),
    Finding(
        "librdkafka-mock-consumer-protocol-leaves-partitions",
        "librdkafka:consumer-protocol",
        "a KIP-848 group's target assignment gives every partition (the mock broker's 'simple range' gives a "
        "topic's extra partitions by the member's place in the whole group, not among the topic's subscribers)",
        lambda m: "valid" in m and not m["valid"],
    ),
    Finding(
        "cooperative-sticky-not-stickiest",
        "cooperative-sticky",
        "as sticky as possible, second to balance",
        lambda m: (
            m["valid"] and m["sorted_loads"] == m["optimal_sorted_loads"] and m["retained"] < m["optimal_retained"]
        ),
    ),
)
