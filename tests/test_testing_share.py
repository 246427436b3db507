"""assignment_oracle.testing on share groups (KIP-932): the asserts and check_assignor through the judge's ``share``
kind.

assert_optimal is checked against brute force (optimal.brute_force.share_optimum: every subset of the pairs a
member may hold, measured tier by tier), not against the flow model the judge solves; the guarantees against
values derived by hand; check_assignor against Kafka's own assignor, whose defects the bug corpus records.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from assignment_oracle.compare.scenarios.share_strategies import share_problems
from assignment_oracle.optimal.brute_force import share_optimum, share_pairs
from assignment_oracle.optimal.share_request import ShareRequest, better, measure
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, violations
from assignment_oracle.strategies import json_scenarios
from assignment_oracle.testing import (
    KINDS,
    OracleAssertionError,
    assert_guarantee,
    assert_optimal,
    assert_valid,
    check_assignor,
    optimal_assignment,
)

#: Two members on one topic of 3 partitions: desiredSharing ceil(2/3) = 1, each partition once, loads 2 and 1.
TWO = {"kind": "share", "topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}}
#: share-heterogeneous-skew's group (the bug corpus): Kafka gives A 5 and B 2 where 4 and 3 is valid.
SKEW = {
    "kind": "share",
    "topics": {"t1": 3, "t2": 3, "u": 1},
    "members": {"A": {"topics": ["t1", "t2", "u"]}, "B": {"topics": ["t1", "t2"]}},
}
KAFKA_SKEW = {"A": {"t1": [0, 2], "t2": [0, 2], "u": [0]}, "B": {"t1": [1], "t2": [1]}}


def every_assignment(problem: ShareProblem):
    pairs = share_pairs(problem)
    for mask in range(1 << len(pairs)):
        held: dict = {m.member_id: [] for m in problem.members}
        for bit, (member, tp) in enumerate(pairs):
            if mask >> bit & 1:
                held[member].append(tp)
        yield ShareAssignment({m: tuple(ps) for m, ps in held.items()})


@settings(max_examples=15, deadline=None)
@given(share_problems(max_topics=2, max_partitions=2, max_members=3))
def test_assert_optimal_passes_exactly_the_assignments_brute_force_calls_optimal(tmp_path_factory, problem):
    if len(share_pairs(problem)) > 5:  # 32 assignments, each judged: enough to tell, quick to run
        problem = ShareProblem.from_mapping({**problem.to_mapping(), "members": {}})
    best = share_optimum(problem)
    folder = tmp_path_factory.mktemp("share")
    for assignment in every_assignment(problem):
        expected = better(best.tiers, measure(problem, assignment).values(best.tiers), best.values) == 0
        try:
            assert_optimal(problem, assignment, folder=folder)
            passed = True
        except OracleAssertionError as err:
            passed = False
            assert "gap at the" in str(err) and err.replay.startswith("assignment-oracle check ")
        assert passed == expected, (problem.to_mapping(), assignment.to_mapping())


def test_assert_valid_on_share_groups():
    assert_valid(TWO, {"a": {"t": [0, 1, 2]}, "b": {"t": [0, 1, 2]}})  # sharing every partition is valid
    assert_valid(TWO, {"a": {"t": [0]}})  # and so is leaving partitions without a holder (a coverage gap)
    with pytest.raises(OracleAssertionError, match=r"(?m)^valid: no: not-subscribed \(member a\): u-0"):
        assert_valid({**TWO, "topics": {"t": 3, "u": 1}}, {"a": {"t": [0], "u": [0]}})
    with pytest.raises(OracleAssertionError, match=r"(?m)^valid: no: held-twice \(member a\): t-1"):
        assert_valid(TWO, {"a": {"t": [1, 1]}})
    with pytest.raises(OracleAssertionError, match="the answer cannot be read: .*a.t\\[0\\]: must be non-negative"):
        assert_valid(TWO, {"a": {"t": [-1]}})


def test_assert_optimal_on_share_groups_with_tiers_and_objectives(tmp_path):
    assert_optimal(TWO, {"a": {"t": [0, 1]}, "b": {"t": [2]}})
    assert_optimal(json.dumps(TWO), {"assignment": {"a": {"t": [2]}, "b": {"t": [0, 1]}}})
    with pytest.raises(OracleAssertionError, match="gap at the coverage tier") as err:
        assert_optimal(TWO, {"a": {"t": [0]}, "b": {"t": [1]}}, folder=tmp_path)
    assert err.value.verdict.kind == "share" and len(err.value.files) == 2
    assert err.value.replay.startswith("assignment-oracle check ") and "--objective" not in err.value.replay
    # Kafka's answer on the skewed group: covered and shared as the optimum, then a gap at member balance; the
    # per-topic balance Kafka's heterogeneous builder computes is met (2 and 1 on each topic)
    with pytest.raises(OracleAssertionError, match="gap at the balance tier"):
        assert_optimal(SKEW, KAFKA_SKEW)
    assert_optimal(SKEW, KAFKA_SKEW, tiers=["coverage", "sharing"])
    per_topic = "coverage,sharing,balance:per-topic,stickiness"
    assert_optimal(SKEW, KAFKA_SKEW, objective=per_topic)
    with pytest.raises(OracleAssertionError) as err:
        assert_optimal(SKEW, {"A": {"t1": [0, 1, 2], "t2": [0, 1, 2], "u": [0]}, "B": {}}, objective=per_topic)
    assert f"--objective {per_topic.replace('sharing', 'sharing:kafka')}" in err.value.replay


def test_assert_guarantee_reads_kafkas_promises():
    assert_guarantee(SKEW, KAFKA_SKEW, "balance-within-one")  # per topic on a heterogeneous group: kept
    assert_guarantee(SKEW, KAFKA_SKEW, "sharing-at-desired")
    assert_guarantee(TWO, {"a": {"t": [0, 1]}, "b": {"t": [2]}}, "valid")
    with pytest.raises(OracleAssertionError, match="guarantee balance-within-one broken: broken .*differ by 3"):
        assert_guarantee(TWO, {"a": {"t": [0, 1, 2]}, "b": {}}, "balance-within-one")
    with pytest.raises(OracleAssertionError, match="guarantee coverage broken"):
        assert_guarantee(TWO, {"a": {"t": [0]}, "b": {"t": [1]}}, "coverage")
    with pytest.raises(OracleAssertionError, match="guarantee valid broken: not valid"):
        assert_guarantee(TWO, {"c": {"t": [0]}}, "valid")
    with pytest.raises(ValueError, match=r"^guarantee: 'kafka-balance' is not a share group guarantee \(known: valid"):
        assert_guarantee(TWO, {}, "kafka-balance")
    with pytest.raises(ValueError, match=r"^objective: a share group's tiers are coverage, sharing"):
        assert_optimal(TWO, {}, objective="balance,stickiness")


def test_optimal_assignment_of_a_share_group_is_what_assert_optimal_passes():
    answer = optimal_assignment(SKEW)
    assert sorted(len(ps) for topics in answer.values() for ps in [sum(topics.values(), [])]) == [3, 4]
    assert_optimal(SKEW, answer)


def test_check_assignor_on_share_groups_feeds_each_answer_back_as_assigned():
    seen: list[dict] = []

    def remembering(scenario: dict) -> dict:
        seen.append(scenario)
        return optimal_assignment(scenario)

    check_assignor(remembering, kinds="share", max_examples=5, rounds=3, hostile=False)  # events edit `assigned`
    assert len(seen) >= 3 and len(seen) % 3 == 0 and all(s["kind"] == "share" for s in seen)
    for before, after in zip(seen[0::3] + seen[1::3], seen[1::3] + seen[2::3]):
        answer = optimal_assignment(before)
        for member, entry in after["members"].items():
            if member in before["members"]:  # a member that stayed holds what it was given
                assert entry.get("assigned", {}) == {t: ps for t, ps in answer.get(member, {}).items() if ps}
            else:  # a member that joined comes last, as the coordinator adds it
                assert list(after["members"])[-1] == member


def test_check_assignor_finds_kafkas_assignor_keeping_what_it_may_not():
    """The bug corpus's share-unsubscribed-topic-kept or share-held-unassignable-kept, found by check_assignor on
    its own: Kafka's assignor keeps a held partition of a topic nobody subscribes to in a heterogeneous group, or
    one whose share state is not initialised."""
    with pytest.raises(OracleAssertionError) as err:
        check_assignor("share-simple", kinds="share", guarantee="valid", max_examples=100, rounds=1)
    problem = load_scenario(err.value.scenario)
    answer = load_assignment(err.value.answer, problem)
    found = {v.kind for v in violations(problem, answer)}
    assert isinstance(problem, ShareProblem) and len(problem.members) <= 2
    assert found in ({"not-assignable"}, {"not-subscribed"})
    if found == {"not-subscribed"}:  # the heterogeneous builder's (share-unsubscribed-topic-kept)
        assert not problem.is_homogeneous
    assert "check_assignor: not valid" in str(err.value) and "(share group; assignor share-simple)" in str(err.value)


def kafka_on_clean_groups(scenario: dict) -> dict:
    """Kafka's assignor (the port) after dropping what a member holds that it may not (not subscribed, not
    assignable): share-held-unassignable-kept and share-unsubscribed-topic-kept kept out of the way."""
    from assignment_oracle.heuristics.share_simple import assign

    problem = ShareProblem.from_mapping(scenario)
    clean = {
        m.member_id: {
            "topics": list(m.topics),
            "assigned": {t: [p] for t, p in m.assigned if t in m.topics and problem.is_assignable(t, p)},
        }
        for m in problem.members
    }
    for entry in clean.values():
        held: dict = {}
        for t, ps in entry.pop("assigned").items():
            held.setdefault(t, []).extend(ps)
        if held:
            entry["assigned"] = held
    return assign(ShareProblem.from_mapping({**scenario, "members": clean})).to_mapping()


def test_check_assignor_finds_kafkas_member_loads_skewed_on_a_heterogeneous_group():
    """share-heterogeneous-skew's finding, found by check_assignor: balanced per topic (Kafka's promise on a
    heterogeneous group, kept) but not over the members, where the optimum is."""
    with pytest.raises(OracleAssertionError, match="gap at the balance tier") as err:
        check_assignor(kafka_on_clean_groups, kinds="share", max_examples=100, rounds=1)
    problem = load_scenario(err.value.scenario)
    answer = err.value.answer["assignment"]
    assert not problem.is_homogeneous
    assert_guarantee(problem, answer, "balance-within-one")
    loads = sorted(sum(len(ps) for ps in topics.values()) for topics in answer.values())
    assert loads[-1] - loads[0] > 1


def test_the_kinds_include_share_groups_and_their_strategies_are_public():
    assert set(KINDS) == {"consumer", "streams", "share"}
    from assignment_oracle import strategies

    assert {"share_scenarios", "share_problems"} <= set(strategies.__all__)
    assert json_scenarios("share") is not None
    assert ShareRequest().tiers() == ("coverage", "sharing", "balance", "stickiness")
