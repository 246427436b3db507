"""librdkafka's mock broker assigning share groups, live (heuristics/librdkafka_share.py): real share consumers.

Every expected assignment is derived by hand from the mock's source (librdkafka src/rdkafka_mock_sharegrp.c,
rd_kafka_mock_sharegroup_assign_topic_partitions): per topic, its subscribers in join order, subscriber i of S
gets the next ceil(P/S*(i+1)) - ceil(P/S*i) partitions; none is copied from a live run.  The verdicts come from
the one judge.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("confluent_kafka")  # the librdkafka extra; CI installs it with [all]

from assignment_oracle.compare.judge import kind_of  # noqa: E402
from assignment_oracle.heuristics import librdkafka_share  # noqa: E402
from assignment_oracle.heuristics.librdkafka_share import _Seat  # noqa: E402
from assignment_oracle.heuristics.registry import SHARE_ASSIGNORS, get_assignor  # noqa: E402
from assignment_oracle.problem.share import ShareProblem  # noqa: E402

PEER = "librdkafka:share-mock"

#: Topic a (3 partitions): m0, m1, m2 subscribe, one each (3/3 = 1).  Topic b (2): m0, m2, m3 in join order,
#: 2/3 each: ceil(2/3) - 0 = 1 (m0: b-0), ceil(4/3) - 1 = 1 (m2: b-1), ceil(2) - 2 = 0 (m3: nothing).  m4
#: subscribes to nothing: not in the share group.
GROUP = {
    "kind": "share",
    "topics": {"a": 3, "b": 2},
    "members": {
        "m0": {"topics": ["a", "b"]},
        "m1": {"topics": ["a"]},
        "m2": {"topics": ["a", "b"]},
        "m3": {"topics": ["b"]},
        "m4": {"topics": []},
    },
}
SPLIT = {"m0": {"a": [0], "b": [0]}, "m1": {"a": [1]}, "m2": {"a": [2], "b": [1]}, "m3": {}, "m4": {}}


def test_the_peer_is_registered_as_a_live_share_assignor_left_out_of_all():
    entry = get_assignor(PEER, kind="share")
    assert entry.live and entry.extra == "librdkafka" and not SHARE_ASSIGNORS["share-simple"].live
    problem = ShareProblem.from_mapping({"kind": "share", "topics": {"t": 1}, "members": {}})
    runs = kind_of(problem).compare(problem, ["all"]).rows
    assert {r.assignor for r in runs} == {"share-simple"}  # no live group unless named


def test_the_log_is_read_as_the_consumer_sets_its_assignment():
    """The lines as confluent-kafka hands them to a logger (librdkafka 2.16.0, debug=cgrp)."""
    seat = _Seat("m0", ("a", "b"))
    say = "{} [member-0#consumer-2] [thrd:main]: {}".format
    seat.read(say("HEARTBEAT", "ShareGroupHeartbeat response received assigned_topic_partitions size 2"), 1.0)
    assert not seat.told  # sent a target, not yet set
    seat.read(say("GRPASSIGNMENT", "List with 2 partition(s):"), 1.1)
    seat.read(say("GRPASSIGNMENT", " a [0] offset INVALID"), 1.1)
    assert not seat.told and seat.received == frozenset()
    seat.read(say("GRPASSIGNMENT", " b [1] offset INVALID"), 1.2)
    assert seat.told and seat.received == {("a", 0), ("b", 1)} and seat.changed == 1.2
    # fenced: the consumer clears its assignment and rejoins; the target it had stands until a new one comes
    seat.read(say("LOST", 'Group "g": current assignment of 2 partition(s) lost: member fenced - rejoining'), 2.0)
    seat.read(say("ASSIGNMENT", 'Group "g": clearing group assignment'), 2.0)
    assert seat.fenced == 1 and seat.received == {("a", 0), ("b", 1)} and seat.changed == 1.2
    seat.read(say("HEARTBEAT", "ShareGroupHeartbeat response received assigned_topic_partitions size 0"), 3.0)
    assert seat.told and seat.received == frozenset() and seat.changed == 3.0
    seat.read("not a librdkafka line", 4.0)
    assert seat.changed == 3.0


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_live_share_group_gets_the_mocks_split_in_join_order_and_leaves_nothing_running():
    before = _fds()
    answer = librdkafka_share.assign(ShareProblem.from_mapping(GROUP))
    assert answer.to_mapping() == SPLIT
    assert _fds() <= before + 2  # every consumer and the mock closed


def test_the_groups_order_decides_the_split():
    """The same members joining in reverse: b's subscribers are m3, m2, m0 (m3: b-0, m2: b-1, m0: nothing) and
    a's m2, m1, m0."""
    reverse = {**GROUP, "members": dict(reversed(list(GROUP["members"].items())))}
    answer = librdkafka_share.assign(ShareProblem.from_mapping(reverse))
    assert answer.to_mapping() == {
        "m0": {"a": [2]},
        "m1": {"a": [1]},
        "m2": {"a": [0], "b": [1]},
        "m3": {"b": [0]},
        "m4": {},
    }


def test_the_one_judge_finds_no_sharing_and_what_the_mock_does_not_read():
    """Four members on one topic of two partitions: Kafka's desiredSharing is ceil(4/2) = 2 holders each; the mock
    gives c0 and c2 one partition each and c1, c3 nothing (2/4: ceil(0.5) - 0 = 1, ceil(1) - 1 = 0, ceil(1.5) - 1
    = 1, ceil(2) - 2 = 0).  A partition whose share state is not initialised is assigned all the same: the answer is invalid."""
    problem = ShareProblem.from_mapping(
        {"kind": "share", "topics": {"t": 2}, "members": {f"c{i}": {"topics": ["t"]} for i in range(4)}}
    )
    (row,) = kind_of(problem).compare(problem, [PEER]).rows
    v = row.verdict
    assert row.status == "ok" and v.valid and v.assignor == PEER
    assert v.measures["loads"] == {"c0": 1, "c1": 0, "c2": 1, "c3": 0}
    assert v.gap_tier == "sharing" and "sharing-at-desired" in v.broken and "coverage" not in v.broken
    restricted = ShareProblem.from_mapping(
        {"kind": "share", "topics": {"t": {"partitions": 2, "assignable": [0]}}, "members": {"c0": {"topics": ["t"]}}}
    )
    (row,) = kind_of(restricted).compare(restricted, [PEER]).rows
    assert row.verdict.status == "invalid" and any("t-1" in x for x in row.verdict.violations)


def test_the_java_order_is_refused_in_one_line(capsys, tmp_path):
    from assignment_oracle.cli import main

    path = tmp_path / "g.json"
    path.write_text(__import__("json").dumps(GROUP))
    code = main(["assign", str(path), "--assignor", PEER, "--iteration-order", "java"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "group's own order" in err
    with pytest.raises(ValueError):
        librdkafka_share.assign(ShareProblem.from_mapping(GROUP), iteration_order="java")
