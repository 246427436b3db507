"""The judge on share groups (compare/judge/share.py through compare.judge.judge): tiers, gaps, Kafka's promises.

Expected values are derived by hand.  The bundled example (cli/examples/share-rebalance.json) is a
heterogeneous group: ``orders`` (6 partitions) and ``payments`` (3) on billing-1..4, ``audit`` (1) on
billing-1 and audit-1.  Kafka's targets per topic: orders ceil(4/6) = 1, payments ceil(4/3) = 2, audit
ceil(2/1) = 2: 6 + 6 + 2 = 14 pairs.  audit-1 can hold only audit-0 (load 1); the other 13 go to the four
billing members, most balanced [4, 3, 3, 3].  The 10 pairs held (billing-1..3 two orders and one payment
each, audit-1 audit-0) can all stay: billing-1 adds audit-0 (4), billing-4 takes the three payments' second
holders (3): [4, 3, 3, 3, 1], 10 kept.  Kafka's answers (the port, equal to Kafka's Java in Java's order) are
[5, 4, 2, 2, 1] (sorted order) and [4, 4, 3, 2, 1] (Java's): a gap at balance.
"""

from __future__ import annotations

import json

import pytest

from assignment_oracle.cli import bundled_examples
from assignment_oracle.compare.judge import judge, kind_of
from assignment_oracle.heuristics import share_simple
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.share import ShareCertificate
from assignment_oracle.optimal.share_request import ShareRequest
from assignment_oracle.problem.share import ShareAssignment, ShareProblem

EXAMPLE = next(p for p in bundled_examples() if p.stem == "share-rebalance")


def example() -> ShareProblem:
    return ShareProblem.from_mapping(json.loads(EXAMPLE.read_text()))


def share(data: dict) -> ShareProblem:
    return ShareProblem.from_mapping({"kind": "share", **data})


def test_the_optimum_of_the_example_is_optimal_with_its_certificate():
    problem = example()
    optimum = solve(problem)
    assert [t.value for t in optimum.tiers] == [0, [], [4, 3, 3, 3, 1], 10]
    verdict = judge(problem, optimum.assignment, certificate=optimum.certificate)
    assert verdict.kind == "share" and verdict.status == "optimal" and verdict.exit_code() == 0
    assert verdict.finding("certificate").holds is True
    assert verdict.finding("oracle-certificate").holds is True
    # the member-balanced optimum leaves billing-4 no orders: Kafka's per-topic promise is not the optimum's
    assert verdict.finding("balance-within-one").holds is False
    assert verdict.finding("balance-within-one").role == "finding"  # no assignor named: not a guarantee


def test_kafkas_answer_has_a_gap_at_balance_in_both_orders():
    problem = example()
    optimum = solve(problem)
    for order, loads, kept in (("sorted", [5, 4, 2, 2, 1], 9), ("java", [4, 4, 3, 2, 1], 8)):
        verdict = judge(
            problem, share_simple.assign(problem, iteration_order=order), optimum=optimum, assignor="share-simple"
        )
        assert verdict.status == "gap" and verdict.gap_tier == "balance" and verdict.exit_code() == 1
        assert verdict.tier("balance").value == loads and verdict.tier("stickiness").value == kept
        # Kafka's own promises hold on its answer: covered, at desiredSharing, within one per topic
        assert verdict.broken == ()
        assert verdict.finding("sticky-at-equal-balance").holds is None  # balance differs: not comparable


def test_per_topic_balance_and_targets_make_kafkas_answer_optimal_here():
    # What Kafka's heterogeneous builder balances: each topic over its subscribers.
    problem = example()
    request = ShareRequest(balance="per-topic", sharing="per-topic")
    verdict = judge(problem, share_simple.assign(problem), request, assignor="share-simple")
    assert verdict.status == "optimal"
    assert verdict.tier("balance").value == [2, 2, 2, 2, 1, 1, 1, 1, 1, 1]


GROUP = {
    "topics": {"t": 4},
    "members": {
        "a": {"topics": ["t"], "assigned": {"t": [0, 1]}},
        "b": {"topics": ["t"], "assigned": {"t": [2, 3]}},
    },
}


def test_each_tier_gap_and_the_promise_it_breaks():
    problem = share(GROUP)  # optimum: a keeps 0, 1 and b keeps 2, 3
    cases = [
        # t-3 left without a holder: coverage, and Kafka's coverage promise
        ({"a": (("t", 0), ("t", 1)), "b": (("t", 2),)}, "coverage", "coverage"),
        # t-0 held twice (target 1): sharing, and sharing-at-desired
        ({"a": (("t", 0), ("t", 1)), "b": (("t", 0), ("t", 2), ("t", 3))}, "sharing", "sharing-at-desired"),
        # 3 and 1: balance, and balance-within-one
        ({"a": (("t", 0), ("t", 1), ("t", 2)), "b": (("t", 3),)}, "balance", "balance-within-one"),
        # swapped: equal before stickiness, nothing kept
        ({"a": (("t", 2), ("t", 3)), "b": (("t", 0), ("t", 1))}, "stickiness", "sticky-at-equal-balance"),
    ]
    optimum = solve(problem)
    for members, tier, promise in cases:
        verdict = judge(problem, ShareAssignment(members), optimum=optimum, assignor="mine")
        assert verdict.status == "gap" and verdict.gap_tier == tier, (members, verdict.text())
        assert promise in verdict.broken
    stickiness = judge(problem, ShareAssignment(cases[-1][0]), optimum=optimum).tier("stickiness")
    assert stickiness.difference["kept_fewer_by"] == 4
    assert {(m["partition"], m["member"]) for m in stickiness.involved["moved"]} == {
        ("t-0", "a"),
        ("t-1", "a"),
        ("t-2", "b"),
        ("t-3", "b"),
    }


def test_an_invalid_assignment_and_a_certificate_that_does_not_prove_it():
    problem = share({"topics": {"t": {"partitions": 2, "assignable": [0]}}, "members": {"a": {"topics": ["t"]}}})
    verdict = judge(problem, ShareAssignment({"a": (("t", 0), ("t", 1))}))
    assert verdict.status == "invalid" and verdict.exit_code() == 3 and "not-assignable" in verdict.violations[0]
    optimum = solve(problem)
    other = solve(share(GROUP))
    given = ShareCertificate(other.certificate.tiers, other.certificate.potentials)
    verdict = judge(problem, optimum.assignment, certificate=given)
    assert verdict.status == "optimal" and verdict.finding("certificate").holds is False and verdict.exit_code() == 4


def test_compare_runs_both_orders_and_the_table_reads_the_verdicts():
    problem = example()
    comparison = kind_of(problem).compare(problem, ["all"])
    assert [(r.assignor, r.iteration_order) for r in comparison.rows] == [
        ("share-simple", "sorted"),
        ("share-simple", "java"),
    ]
    text = comparison.text()
    assert "optimum" in text and "gap at balance" in text and "10/10" in text
    doc = comparison.to_mapping()
    assert doc["optimum"]["sharing_targets"] == {"orders": 1, "payments": 2, "audit": 2}


def test_java_order_without_topic_ids_is_a_row_with_its_reason():
    problem = share({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}})  # homogeneous, no ids
    rows = kind_of(problem).compare(problem, ["all"]).rows
    assert rows[0].status == "ok" and rows[1].status == "error" and "id" in rows[1].message


@pytest.mark.parametrize("name, tier", [("share-heterogeneous-skew", "balance")])
def test_a_corpus_entry_is_a_gap_at_its_tier(name, tier):
    from assignment_oracle.compare.scenarios.bugs import BUGS

    bug = BUGS[name]
    (problem,) = bug.problems()
    verdict = judge(problem, ShareAssignment.from_mapping(dict(bug.recorded)), assignor="share-simple")
    assert verdict.gap_tier == tier
