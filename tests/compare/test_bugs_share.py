"""The share group entries of the bug corpus (KIP-932, Kafka's SimpleAssignor at d79bd50): each replays as
expected through the one judge, the port in Java's order still gives what Kafka's Java answered, and each
finding is checked on its own.

The independent checks do not read the judge: Kafka's answers are compared with values derived by hand from
Kafka's code (each test says how); the expected assignment of each report is written out by hand, checked valid
with :func:`problem.share.violations` and better on the entry's tier with
:func:`optimal.share_request.measure` (tiers in Kafka's order); the exact optimum is at least as good there.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from assignment_oracle.compare.scenarios import bugs
from assignment_oracle.compare.scenarios.bugs import (
    BUGS,
    SHARE_KAFKA_COMMIT,
    SHARE_SIMPLE,
    SHARE_SIMPLE_JAVA,
    SHARE_SIMPLE_RECORDING,
    ShareVariant,
    find,
    replay,
    replay_assignor,
)
from assignment_oracle.heuristics import get_assignor, share_simple
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.share_request import DEFAULT_ORDER, measure, tier_key
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, holders, loads, uncovered, violations

SHARE_ENTRIES = sorted(name for name, bug in BUGS.items() if bug.share)
CONFIRMED = [n for n in SHARE_ENTRIES if BUGS[n].reproduces]
#: The hand-written expected assignment of each report, and the tier Kafka's answer falls short on there
#: (``None``: Kafka's answer is not valid, or thrown).
EXPECTED = {
    "share-heterogeneous-skew": ("balance", {"A": {"t1": [0, 2], "t2": [1], "u": [0]}, "B": {"t1": [1], "t2": [0, 2]}}),
    "share-remaining-partitions-starved": (
        "sharing",
        {f"m{i}": {"t": ps} for i, ps in enumerate([[0, 1], [2], [2], [1], [2], [0], [0]])},
    ),
    "share-unsubscribed-topic-kept": (None, {"A": {"t": [0]}, "B": {}}),
    "share-held-unassignable-kept": (None, {"A": {"t": [0]}}),
    "share-held-unassignable-crash": (None, {"m0": {"t": [1]}, "m1": {"t": [1]}}),
}


def problem_of(name: str) -> ShareProblem:
    (problem,) = BUGS[name].problems()
    return problem  # type: ignore[return-value]


def kafka(name: str) -> ShareAssignment:
    return ShareAssignment.from_mapping(dict(BUGS[name].recorded))


def test_the_share_entries_are_there_and_cite_kafkas_lines():
    assert set(SHARE_ENTRIES) == {
        "share-heterogeneous-skew",
        "share-remaining-partitions-starved",
        "share-unsubscribed-topic-kept",
        "share-held-unassignable-kept",
        "share-held-unassignable-crash",
        "share-member-not-recorded",
    }
    for name in SHARE_ENTRIES:
        bug = BUGS[name]
        assert "AssignmentBuilder.java at d79bd50" in bug.source and " line" in bug.source
        assert "on Kafka's Java" in bug.source and "\n" not in bug.source
        assert SHARE_KAFKA_COMMIT in bug.report and bug.recorded is not None
        assert bug.shown_by[0] is SHARE_SIMPLE_JAVA  # the variant whose answer is Kafka's
        assert find(name.upper()) == (name,)
    assert [n for n in SHARE_ENTRIES if not BUGS[n].reproduces] == ["share-member-not-recorded"]


@pytest.mark.parametrize("name", CONFIRMED)
def test_each_report_can_be_filed_upstream(name):
    report = BUGS[name].report
    for part in ("What:", "Smallest input:", "Expected:", "Actual:", "Code:", "Confirmed on Kafka's Java"):
        assert part in report, part
    assert f"at {SHARE_KAFKA_COMMIT}" in report and "lines " in report


@pytest.mark.parametrize("name", SHARE_ENTRIES)
def test_each_share_entry_replays_as_expected_through_the_one_judge(name):
    result = replay(name)
    assert result.as_expected and result.recorded is True, result.finding
    assert result.reproduced == BUGS[name].reproduces and result.fixed
    assert "as Kafka's Java answered: yes (share-simple-java)" in result.text()
    document = json.loads(json.dumps(result.to_mapping()))
    assert document["name"] == name and document["as_expected"] is True and document["as_recorded"] is True
    row = result.rows[0][SHARE_SIMPLE_JAVA.name]
    if row.status != "error":
        assert row.verdict.kind == "share" and row.verdict.assignor == SHARE_SIMPLE_JAVA.name
        assert result.explanation is not None and result.explanation.text().startswith("share-simple-java")


def test_a_replay_no_longer_giving_kafkas_recorded_answer_is_not_as_expected():
    bug = BUGS["share-heterogeneous-skew"]
    other = dataclasses.replace(bug, recorded={"A": {"t1": [0, 1, 2], "t2": [0, 2], "u": [0]}, "B": {"t2": [1]}})
    result = bugs.replay_entry(other, time_limit=bugs.TIME_LIMIT)
    assert result.reproduced and result.fixed and result.recorded is False and not result.as_expected
    assert "as Kafka's Java answered: no" in result.text() and "NOT AS EXPECTED" in result.text()


@pytest.mark.parametrize("name", SHARE_ENTRIES)
def test_a_share_replay_out_of_time_is_not_judged(name):
    result = replay(name, time_limit=1e-6)
    assert not result.as_expected and result.finding.startswith("not judged: ")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_expected_assignment_is_valid_and_better_than_kafkas_and_the_optimum_as_good(name):
    """Independent of the judge: validity and the tiers by measure, in Kafka's order."""
    tier, expected = EXPECTED[name]
    problem = problem_of(name)
    mine = ShareAssignment.from_mapping(expected)
    assert violations(problem, mine) == ()
    optimum = measure(problem, solve(problem).assignment)
    ours = measure(problem, mine)
    if tier is None:  # Kafka's answer is not valid or thrown: the expected one is as good as the optimum
        assert all(tier_key(t, ours.value(t)) == tier_key(t, optimum.value(t)) for t in DEFAULT_ORDER)
        return
    theirs = measure(problem, kafka(name))
    before = DEFAULT_ORDER[: DEFAULT_ORDER.index(tier)]
    assert all(tier_key(t, ours.value(t)) <= tier_key(t, theirs.value(t)) for t in before)
    assert tier_key(tier, ours.value(tier)) < tier_key(tier, theirs.value(tier))
    assert tier_key(tier, optimum.value(tier)) <= tier_key(tier, ours.value(tier))


def test_heterogeneous_skew():
    """Each topic of 3 partitions over its 2 subscribers: desiredSharing 1, x = 3/2, counts ceil(1.5) - 0 = 2 for
    the first subscriber (A in memberIds() order) and 3 - 2 = 1 for B; u goes to A: 2 + 2 + 1 and 1 + 1."""
    problem = problem_of("share-heterogeneous-skew")
    assert not problem.is_homogeneous
    for order in ("java", "sorted"):
        answer = share_simple.assign(problem, iteration_order=order)
        assert answer == kafka("share-heterogeneous-skew") and violations(problem, answer) == ()
    assert loads(problem, kafka("share-heterogeneous-skew")).tolist() == [5, 2]  # A, B
    assert loads(problem, ShareAssignment.from_mapping(EXPECTED["share-heterogeneous-skew"][1])).tolist() == [4, 3]


def test_remaining_partitions_starved():
    """desiredSharing ceil(7 / 3) = 3; x = 9/7, counts 2, 1, 1, 2, 1, 1, 1 for m0..m6: only m0 and m3 are unfilled,
    both hold t-1.  Kafka tries t-1 first (Java's order), finds nobody, then skips t-0: holders [2, 2, 3]."""
    problem = problem_of("share-remaining-partitions-starved")
    answer = share_simple.assign(problem, iteration_order="java")
    assert answer == kafka("share-remaining-partitions-starved") and violations(problem, answer) == ()
    assert holders(problem, answer).tolist() == [2, 2, 3]
    assert answer.of("m0") == (("t", 1),) and answer.of("m3") == (("t", 1),)
    expected = ShareAssignment.from_mapping(EXPECTED["share-remaining-partitions-starved"][1])
    assert holders(problem, expected).tolist() == [3, 2, 3]
    # sorted order reaches t-0 first: m0 takes it, and t-1 is the one left short
    assert holders(problem, share_simple.assign(problem, iteration_order="sorted")).tolist() == [3, 2, 3]


def test_unsubscribed_topic_kept():
    problem = problem_of("share-unsubscribed-topic-kept")
    found = violations(problem, kafka("share-unsubscribed-topic-kept"))
    assert [(v.kind, v.member_id, v.partitions) for v in found] == [("not-subscribed", "A", (("u", 0),))]


def test_held_unassignable_kept():
    problem = problem_of("share-held-unassignable-kept")
    answer = kafka("share-held-unassignable-kept")
    assert [(v.kind, v.partitions) for v in violations(problem, answer)] == [("not-assignable", (("t", 1),))]
    assert uncovered(problem, answer) == (("t", 0),)


def test_held_unassignable_crash():
    problem = problem_of("share-held-unassignable-crash")
    with pytest.raises(share_simple.SimpleAssignorException) as raised:
        share_simple.assign(problem, iteration_order="java")
    assert raised.value.java_class == BUGS["share-held-unassignable-crash"].recorded
    row = replay("share-held-unassignable-crash").rows[0][SHARE_SIMPLE_JAVA.name]
    assert row.status == "error" and row.thrown == "java.util.NoSuchElementException" and row.verdict is None


def test_member_not_recorded_is_refuted():
    """The only unfilled member is picked twice for DOj-0; nobody else lacks DOj-0 and is unfilled: the javadoc's
    tolerated case, and the same answer as the code that records the member."""
    problem = problem_of("share-member-not-recorded")
    answer = kafka("share-member-not-recorded")
    assert violations(problem, answer) == () and holders(problem, answer).tolist() == [1, 2]
    assert SHARE_SIMPLE_RECORDING.assign(problem) == answer == SHARE_SIMPLE_JAVA.assign(problem)
    result = replay("share-member-not-recorded")
    assert not result.reproduced and "recording the member changes nothing" in result.finding
    # the group's order matters: memberIds() is filled in the order listed, and Java's answer follows it
    assert list(problem.member_ids) == ["consumer-7-20d1", "consumer-9-77c1", "consumer-6-fa91"]


# -- another assignor in the place of Kafka's ----------------------------------------------------------------

OPTIMUM = ShareVariant("optimum", lambda problem: solve(problem).assignment)


@pytest.mark.parametrize("name", CONFIRMED)
def test_the_defect_is_still_there_in_kafkas_assignor_and_gone_in_the_optimum(name):
    still = replay_assignor(name, BUGS[name].shown_by[-1])  # sorted order where it shows the defect too
    assert still.judged and still.defect is True and still.exit_code() == 1
    gone = replay_assignor(name, OPTIMUM)
    assert gone.judged and gone.defect is False and gone.exit_code() == 0, gone.replay.finding
    assert gone.replaced == tuple(v.name for v in BUGS[name].shown_by)


def test_an_assignor_of_another_kind_cannot_replay_a_share_entry():
    with pytest.raises(ValueError, match="share group"):
        replay_assignor("share-heterogeneous-skew", get_assignor("sticky"))
    with pytest.raises(ValueError, match="consumer group"):
        replay_assignor("kafka-7026", SHARE_SIMPLE)
