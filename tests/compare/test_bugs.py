"""The bug corpus tells the truth on every run: each bug shows where it should, each fix holds."""

from __future__ import annotations

import json

import pytest

from assignment_oracle.compare.scenarios.bugs import BUGS, find, replay

REQUIRED = {"kafka-7026", "local-condition-chain", "kafka-12984-equal-generation", "kafka-12984-claim-order",
            "kafka-15106-loop-shape", "kafka-16277-per-topic-skew", "kafka-18688-balanced-stays",
            "kafka-14639-stale-handoff"}


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
def test_replay_is_as_expected(name):
    result = replay(name)
    assert result.as_expected, result.finding
    document = json.loads(json.dumps(result.to_mapping()))
    assert document["name"] == name and document["as_expected"] is True


def test_kafka_7026_names_the_duplicate():
    result = replay("kafka-7026")
    row = result.rows[0]["sticky-kip54"]
    assert row.status == "invalid"
    assert [(v.kind, v.topic, v.partitions) for v in row.verdict.violations] == [("duplicated", "t", (0,))]
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
    assert new.verdict.valid and new.verdict.most_balanced


def test_a_replay_whose_variants_do_not_finish_is_not_judged_as_expected():
    """With a limit nobody can meet, no entry passes vacuously; the loop entry reports the loop."""
    for name in BUGS:
        result = replay(name, time_limit=1e-6)
        assert not result.as_expected
        if BUGS[name].judges_unfinished:
            assert result.reproduced and "timeout" in result.finding
        else:
            assert result.finding.startswith("not judged: ")
