"""The bug corpus tells the truth on every run: each bug shows where it should, each fix holds."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from assignment_oracle.compare.judge.guarantees import check_guarantee
from assignment_oracle.compare.scenarios.bugs import BUGS, find, replay
from assignment_oracle.compare.scenarios.strategies import problems, rebalances
from assignment_oracle.heuristics import uniform
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations

REQUIRED = {
    "kafka-7026",
    "local-condition-chain",
    "kafka-12984-equal-generation",
    "kafka-12984-claim-order",
    "kafka-15106-loop-shape",
    "kafka-16277-per-topic-skew",
    "kafka-18688-balanced-stays",
    "kafka-14639-stale-handoff",
    "kafka-14891-co-partitioned-subsets",
    "kafka-16930-empty-subscription",
}


def test_the_corpus_has_the_issues_entries_each_with_a_one_line_source():
    assert REQUIRED <= set(BUGS)
    for bug in BUGS.values():
        assert bug.source and "\n" not in bug.source and bug.expectation and bug.shown_by + bug.fixed_by


@pytest.mark.parametrize("key", ["KAFKA-12984", "kafka-12984", " Kafka-7026 "])
def test_a_jira_key_finds_exactly_the_entries_named_after_it(key):
    jira = key.strip().lower()
    expected = {name for name in BUGS if name == jira or name.startswith(jira + "-")}
    assert expected and set(find(key)) == expected


@pytest.mark.parametrize("key", ["kafka", "KAFKA-", "kafka-1", "kafka-12984-", "local"])
def test_what_is_neither_an_entry_nor_a_whole_jira_key_finds_nothing(key):
    assert find(key) == ()


def test_every_entry_finds_itself():
    assert all(find(name.upper()) == (name,) for name in BUGS)


@pytest.mark.parametrize("name", sorted(BUGS))
def test_replay_is_as_expected(name, request):
    variants = [v if isinstance(v, str) else v.name for v in BUGS[name].shown_by + BUGS[name].fixed_by]
    if any(v.startswith(("kafkajs:", "kafka-node:")) for v in variants):
        request.getfixturevalue("node_libraries")
    if any(v.startswith(("sarama:", "kafka-go:")) for v in variants):
        request.getfixturevalue("go_libraries")
    result = replay(name)
    assert result.as_expected, result.finding
    document = json.loads(json.dumps(result.to_mapping()))
    assert document["name"] == name and document["as_expected"] is True


def test_kafka_7026_names_the_duplicate():
    result = replay("kafka-7026")
    row = result.rows[0]["sticky-kip54"]
    assert row.status == "invalid"
    assert [(v["kind"], v["topic"], tuple(v["partitions"])) for v in row.verdict.violation_details] == [
        ("duplicated", "t", (0,))
    ]
    assert result.explanation.kind == "invalid"


def test_the_chain_gap_comes_with_the_chain():
    result = replay("local-condition-chain")
    assert result.explanation.kind == "balance"
    assert [str(m) for m in result.explanation.chain] == ["T2-9: M3 → M2", "T1-9: M2 → M1"]


def test_kafka_14639_is_a_handoff_in_the_first_rebalance():
    """Kafka 3.4.0's rule hands t-0 to b while z, which missed a generation, still consumes it;
    holding every claim, nothing reaches b until its holder revoked it."""
    result = replay("kafka-14639-stale-handoff")
    old, new = result.rows[0]["cooperative-sticky-3.4"], result.rows[0]["cooperative-sticky"]
    assert old.guarantee.reason == "rebalance 0: t-0 given to b while z still held it"
    assert old.phases[0].assignment.to_mapping()["b"] == {"t": [0]}
    assert new.phases[0].assignment.to_mapping()["b"] == {} and new.rebalances == 2
    assert new.verdict.valid and new.verdict.measures["most_balanced"]


def test_a_replay_whose_variants_do_not_finish_is_not_judged_as_expected():
    """With a limit nobody can meet, no entry passes vacuously; the loop entry reports the loop."""
    for name in BUGS:
        result = replay(name, time_limit=1e-6)
        assert not result.as_expected
        if BUGS[name].judges_unfinished:
            assert result.reproduced and "timeout" in result.finding
        else:
            assert result.finding.startswith("not judged: ")


def test_kafka_14891_gives_a_partition_twice_and_another_to_nobody():
    result = replay("kafka-14891-co-partitioned-subsets")
    old, new = result.rows[0]["range-pre-kafka-14891"], result.rows[0]["range"]
    assert [(v["kind"], v["topic"], tuple(v["partitions"])) for v in old.verdict.violation_details] == [
        ("duplicated", "clicks", (1,)),
        ("missing", "clicks", (0,)),
    ]
    assert old.assignment.to_mapping()["a"]["clicks"] == [1, 1]
    # Both keep orders and payments co-partitioned; the fix is valid and every partition is a's.
    assert old.assignment.to_mapping()["a"]["orders"] == old.assignment.to_mapping()["a"]["payments"] == [0, 1, 2]
    assert new.assignment.to_mapping() == {"a": {"clicks": [0, 1], "orders": [0, 1, 2], "payments": [0, 1, 2]}}


def test_kafka_16930_is_a_null_pointer_before_the_fix_and_kafkas_expectation_after():
    result = replay("kafka-16930-empty-subscription")
    old, new = result.rows[0]["uniform-pre-kafka-16930"], result.rows[0]["uniform"]
    assert old.status == "error" and old.message.startswith("NullPointerException: ")
    assert new.assignment.to_mapping(("A", "B")) == {"A": {"topic1": [0, 1, 2]}, "B": {}}


def test_kafka_18688_fixed_uniform_keeps_the_balanced_assignment():
    result = replay("kafka-18688-balanced-stays")
    assert result.rows[0]["uniform"].assignment.to_mapping() == {
        "a": {"t": [0, 1]},
        "b": {"t": [2, 3]},
        "c": {"t": [4, 5, 6]},
    }
    assert result.rows[0]["uniform-4.0.0"].assignment.to_mapping()["a"] == {"t": [0, 1, 6]}


def _previous(problem: Problem) -> Problem:
    """The group again, claiming Kafka 4.0.0's uniform target with the members' order reversed (generation 1):
    with identical subscriptions a balanced previous assignment whose extra partitions sit on the last members."""
    data = problem.to_mapping()
    given_out = uniform.assign(problem, variant=uniform.KAFKA_4_0_0).to_mapping(problem.member_ids)
    ids = problem.member_ids
    for member, entry in data["members"].items():
        entry.pop("generation", None)
        entry["owned"] = given_out[ids[len(ids) - 1 - problem.member_index[member]]]
        if entry["owned"]:
            entry["generation"] = 1
    return Problem.from_mapping(data)


@settings(max_examples=150, deadline=None)
@given(rebalances())
def test_the_kafka_18688_fix_is_valid_balanced_and_keeps_a_balanced_target(problem):
    fixed = uniform.assign(problem)
    assert not violations(problem, fixed)
    assert check_guarantee("kafka-balance", problem, fixed).kept
    again = _previous(problem)  # a balanced previous target, extras last: nothing moves (the homogeneous builder)
    if len({frozenset(m.topics & again.partition_counts.keys()) for m in again.members}) == 1:
        kept = {m.member_id: {t: list(ps) for t, ps in m.owned if ps} for m in again.members}
        assert uniform.assign(again).to_mapping(again.member_ids) == kept


@settings(max_examples=150, deadline=None)
@given(problems(max_topics=3, max_partitions=4, max_members=4))
def test_the_pre_16930_variant_fails_exactly_where_kafka_did(problem):
    existing = problem.partition_counts.keys()
    subscriptions = {frozenset(m.topics & existing) for m in problem.members}
    if len(subscriptions) > 1 and frozenset() in subscriptions:
        with pytest.raises(uniform.NullPointerException):
            uniform.assign(problem, variant=uniform.PRE_KAFKA_16930)
    else:
        assert uniform.assign(problem, variant=uniform.PRE_KAFKA_16930) == uniform.assign(
            problem, variant=uniform.KAFKA_4_0_0
        )
