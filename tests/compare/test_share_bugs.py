"""The share group entries of the bug corpus (compare/scenarios/share_bugs.py): each entry's recorded answer is
Kafka's Java's (tools/kafka_differential/share.py) and the port gives it; each finding is checked on its own.

The independent checks do not read the port: the better assignment is written out by hand, checked valid with
:func:`problem.share.violations` and better on the entry's tier with :func:`optimal.share_request.measure`
(tiers in Kafka's order); the exact optimum (``optimal.solve``) is at least as good there.
"""

from __future__ import annotations

import pytest

from assignment_oracle.compare.scenarios.share_bugs import (
    SHARE_BUGS,
    SHARE_KAFKA_COMMIT,
    replay,
    worse_on,
)
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.share_request import measure, tier_key
from assignment_oracle.problem.share import ShareAssignment, holders, loads, uncovered, violations

NAMES = sorted(SHARE_BUGS)


def test_the_entries_are_there_and_cite_kafkas_lines():
    assert set(NAMES) == {
        "share-heterogeneous-skew",
        "share-remaining-partitions-starved",
        "share-unsubscribed-topic-kept",
        "share-held-unassignable-kept",
        "share-held-unassignable-crash",
        "share-member-not-recorded",
    }
    for name in NAMES:
        bug = SHARE_BUGS[name]
        assert "AssignmentBuilder.java at d79bd50" in bug.source and "line" in bug.source
        assert bug.status in ("confirmed", "confirmed, reachability not found", "refuted")
        assert SHARE_KAFKA_COMMIT in bug.report and "Confirmed on Kafka's Java" in bug.report


@pytest.mark.parametrize("name", NAMES)
def test_the_port_answers_what_kafkas_java_answered(name):
    r = replay(name)
    assert r.as_recorded, r.text()
    assert "as Kafka's Java answered: yes" in r.text()


@pytest.mark.parametrize("name", [n for n in NAMES if SHARE_BUGS[n].tier is not None])
def test_a_valid_assignment_is_better_on_the_tier_and_the_optimum_at_least_as_good(name):
    bug = SHARE_BUGS[name]
    assert worse_on(bug)
    problem = bug.problem()
    optimum = measure(problem, solve(problem).assignment)
    mine = measure(problem, ShareAssignment.from_mapping(dict(bug.better)))
    assert tier_key(bug.tier, optimum.value(bug.tier)) <= tier_key(bug.tier, mine.value(bug.tier))


def test_heterogeneous_skew():
    bug = SHARE_BUGS["share-heterogeneous-skew"]
    p = bug.problem()
    kafka = ShareAssignment.from_mapping(dict(bug.kafka))
    assert not p.is_homogeneous and violations(p, kafka) == ()
    assert loads(p, kafka).tolist() == [5, 2]  # A, B
    assert loads(p, ShareAssignment.from_mapping(dict(bug.better))).tolist() == [4, 3]


def test_remaining_partitions_starved():
    """t-0 stays one member short although m0 and m3, each below its desired count of 2, lack it."""
    bug = SHARE_BUGS["share-remaining-partitions-starved"]
    p = bug.problem()
    kafka = ShareAssignment.from_mapping(dict(bug.kafka))
    assert violations(p, kafka) == ()
    assert holders(p, kafka).tolist() == [2, 2, 3]  # desiredSharing ceil(7 / 3) = 3
    assert kafka.of("m0") == (("t", 1),) and kafka.of("m3") == (("t", 1),)
    assert holders(p, ShareAssignment.from_mapping(dict(bug.better))).tolist() == [3, 2, 3]


def test_unsubscribed_topic_kept():
    bug = SHARE_BUGS["share-unsubscribed-topic-kept"]
    p = bug.problem()
    found = violations(p, ShareAssignment.from_mapping(dict(bug.kafka)))
    assert [(v.kind, v.member_id, v.partitions) for v in found] == [("not-subscribed", "A", (("u", 0),))]


def test_held_unassignable_kept():
    bug = SHARE_BUGS["share-held-unassignable-kept"]
    p = bug.problem()
    kafka = ShareAssignment.from_mapping(dict(bug.kafka))
    assert [(v.kind, v.partitions) for v in violations(p, kafka)] == [("not-assignable", (("t", 1),))]
    assert uncovered(p, kafka) == (("t", 0),)


def test_held_unassignable_crash():
    r = replay("share-held-unassignable-crash")
    assert r.answer is None and r.thrown == "java.util.NoSuchElementException"
    # an assignment exists: both members share the one assignable partition
    p = SHARE_BUGS["share-held-unassignable-crash"].problem()
    assert violations(p, ShareAssignment.from_mapping({"m0": {"t": [1]}, "m1": {"t": [1]}})) == ()


def test_member_not_recorded_is_refuted_here():
    """The only unfilled member is picked twice for DOj-0; nobody else lacks DOj-0 and is unfilled: the
    javadoc's tolerated case, the same answer as with the member recorded (the tool's figures in the report)."""
    bug = SHARE_BUGS["share-member-not-recorded"]
    p = bug.problem()
    kafka = ShareAssignment.from_mapping(dict(bug.kafka))
    assert bug.status == "refuted" and bug.tier is None
    assert violations(p, kafka) == () and holders(p, kafka).tolist() == [1, 2]
