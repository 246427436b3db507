"""aiokafka 0.14.0's assignors as peers: aiokafka's own worked examples, kafka-python's and Kafka's answers.

Expected values come from aiokafka's ``tests/coordinator/test_assignors.py``
(tag v0.14.0; each test below names the one it translates), from
kafka-python's assignors (an independent computation of the same algorithm)
and from this project's ports of Kafka's classes.  The differences found are
findings for the bug corpus, each pinned by a minimal scenario with its reason.
"""

from __future__ import annotations

import logging
import sys

import pytest

pytest.importorskip("aiokafka")

from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor  # noqa: E402
from aiokafka.structs import TopicPartition  # noqa: E402

from assignment_oracle.compare.judge.guarantees import check_guarantee  # noqa: E402
from assignment_oracle.compare.scenarios.families import generate  # noqa: E402
from assignment_oracle.heuristics import aiokafka_peer, kafka_python  # noqa: E402
from assignment_oracle.heuristics import range as range_port  # noqa: E402
from assignment_oracle.heuristics import roundrobin as roundrobin_port  # noqa: E402
from assignment_oracle.heuristics import sticky as sticky_port  # noqa: E402
from assignment_oracle.heuristics.registry import ASSIGNORS  # noqa: E402
from assignment_oracle.problem.errors import MissingExtra, install_hint  # noqa: E402
from assignment_oracle.problem.model import Problem  # noqa: E402
from assignment_oracle.problem.ownership import violations  # noqa: E402

PORTS = {"range": range_port.assign, "roundrobin": roundrobin_port.assign, "sticky": sticky_port.assign}
DIFFERING = [
    generate("random-subsets", seed, members=6, topics=4, subscribe=0.5, previous="random", churn=1)
    for seed in range(12)
]
IDENTICAL = [
    generate("uniform", seed, members=5, topics=3, partitions=(2, 9), previous="balanced", churn=1) for seed in range(8)
]
ids = lambda p: f"{len(p.members)}m{p.total_partitions}p"  # noqa: E731


@pytest.fixture(autouse=True)
def _quiet_aiokafka():
    # The sticky assignor logs a warning per conflicting claim; the tests look at the result.
    logging.getLogger("aiokafka").setLevel(logging.ERROR)
    yield
    logging.getLogger("aiokafka").setLevel(logging.NOTSET)


def group(topics: dict[str, int], members: dict[str, dict]) -> Problem:
    return Problem.from_mapping({"topics": topics, "members": members})


def plan(name: str, problem: Problem) -> dict[str, dict[str, list[int]]]:
    """aiokafka's answer, members that got nothing left out (aiokafka's tests list them with [])."""
    result = aiokafka_peer.aiokafka_assign(name, problem).to_mapping(problem.member_ids)
    return {m: topics for m, topics in result.items() if topics}


def test_the_module_contract():
    assert aiokafka_peer.LIBRARY == aiokafka_peer.EXTRA == "aiokafka"
    assert aiokafka_peer.version() == "0.14.0"
    assert list(aiokafka_peer.STRATEGIES) == ["range", "roundrobin", "sticky"]
    for name, (function, port, summary) in aiokafka_peer.STRATEGIES.items():
        assert port == name and port in ASSIGNORS and summary.startswith("aiokafka's ")
        assert function is getattr(aiokafka_peer, f"assign_{name}")


# --- aiokafka's own worked examples ---------------------------------------------------------------------------

TWO_BY_TWO = group({"t0": 3, "t1": 3}, {"C0": {"topics": ["t0", "t1"]}, "C1": {"topics": ["t0", "t1"]}})


def test_assignor_roundrobin():
    assert plan("roundrobin", TWO_BY_TWO) == {"C0": {"t0": [0, 2], "t1": [1]}, "C1": {"t0": [1], "t1": [0, 2]}}


def test_assignor_range():
    assert plan("range", TWO_BY_TWO) == {"C0": {"t0": [0, 1], "t1": [0, 1]}, "C1": {"t0": [2], "t1": [2]}}


def test_sticky_assignor1():
    """Three members on four topics of two partitions, then C1 leaves: everything the others had stays."""
    every = ["t0", "t1", "t2", "t3"]
    first = group(dict.fromkeys(every, 2), {m: {"topics": every} for m in ("C0", "C1", "C2")})
    fresh = plan("sticky", first)
    assert fresh == {
        "C0": {"t0": [0], "t1": [1], "t3": [0]},
        "C1": {"t0": [1], "t2": [0], "t3": [1]},
        "C2": {"t1": [0], "t2": [1]},
    }
    second = group(dict.fromkeys(every, 2), {m: {"topics": every, "owned": fresh[m]} for m in ("C0", "C2")})
    assert plan("sticky", second) == {
        "C0": {"t0": [0], "t1": [1], "t2": [0], "t3": [0]},
        "C2": {"t0": [1], "t1": [0], "t2": [1], "t3": [1]},
    }


def test_sticky_assignor2():
    counts = {"t0": 1, "t1": 2, "t2": 3}
    subscriptions = {"C0": ["t0"], "C1": ["t0", "t1"], "C2": ["t0", "t1", "t2"]}
    fresh = plan("sticky", group(counts, {m: {"topics": t} for m, t in subscriptions.items()}))
    assert fresh == {"C0": {"t0": [0]}, "C1": {"t1": [0, 1]}, "C2": {"t2": [0, 1, 2]}}
    without_c0 = group(counts, {m: {"topics": subscriptions[m], "owned": fresh[m]} for m in ("C1", "C2")})
    assert plan("sticky", without_c0) == {"C1": {"t0": [0], "t1": [0, 1]}, "C2": {"t2": [0, 1, 2]}}


def test_sticky_multiple_consumers_mixed_topic_subscriptions():
    problem = group(
        {"t1": 3, "t2": 2}, {"C1": {"topics": ["t1"]}, "C2": {"topics": ["t1", "t2"]}, "C3": {"topics": ["t1"]}}
    )
    assert plan("sticky", problem) == {"C1": {"t1": [0, 2]}, "C2": {"t2": [0, 1]}, "C3": {"t1": [1]}}


def test_sticky_two_consumers_one_topic_one_partition():
    problem = group({"t": 1}, {"C1": {"topics": ["t"]}, "C2": {"topics": ["t"]}})
    assert plan("sticky", problem) == {"C1": {"t": [0]}}


def test_assignment_with_multiple_generations2():
    """C2 alone took all six at generation 2; C1 and C3 come back claiming their generation-1 shares.

    aiokafka's test passes the generations with ``_metadata`` and expects the
    generation-1 assignment back (as kafka-python and Kafka's port give); its
    coordinator sends -1 for all three, so C1 keeps its two (first in
    JoinGroup order), C2 the rest, and the balancing hands C3 two of C2's, not
    the ones C3 had at generation 1 (``previous_assignment`` is never filled).
    """
    first = {"C1": [0, 3], "C2": [1, 4], "C3": [2, 5]}  # aiokafka's fresh assignment of t:6 to C1..C3
    fresh = plan("sticky", group({"t": 6}, {m: {"topics": ["t"]} for m in first}))
    assert fresh == {m: {"t": p} for m, p in first.items()}
    members = {
        "C1": {"topics": ["t"], "owned": {"t": first["C1"]}, "generation": 1},
        "C2": {"topics": ["t"], "owned": {"t": list(range(6))}, "generation": 2},
        "C3": {"topics": ["t"], "owned": {"t": first["C3"]}, "generation": 1},
    }
    problem = group({"t": 6}, members)
    assert plan("sticky", problem) == {"C1": {"t": [0, 3]}, "C2": {"t": [1, 2]}, "C3": {"t": [4, 5]}}
    for other in (kafka_python.assign_sticky, sticky_port.assign):
        assert other(problem).to_mapping(problem.member_ids) == {m: {"t": p} for m, p in first.items()}


# --- how the members' metadata reaches the leader -------------------------------------------------------------


def test_previous_partitions_reach_the_sticky_assignor_as_real_bytes_with_generation_minus_one():
    problem = DIFFERING[0]
    cluster, members = aiokafka_peer.prepare("sticky", problem)
    assert list(members) == list(problem.member_ids)  # the JoinGroup order
    by_id = {m.member_id: m for m in problem.members}
    for member_id, metadata in members.items():
        mine = by_id[member_id]
        assert isinstance(metadata.user_data, bytes)
        parsed = StickyPartitionAssignor.parse_member_metadata(metadata)
        assert sorted(parsed.partitions) == sorted((t, p) for t, ps in mine.owned for p in ps)
        assert parsed.generation == -1  # aiokafka's coordinator never calls on_generation_assignment
        assert sorted(parsed.subscription) == sorted(mine.topics)
    assert cluster.topics() == {t.name for t in problem.assignable_topics}
    # aiokafka's own class is untouched: each member had a class of its own.
    assert StickyPartitionAssignor.member_assignment is None and StickyPartitionAssignor.generation == -1


def test_a_member_keeps_what_it_owned():
    """C0 owned the partitions round robin would give C1: sticky keeps them with C0, round robin does not."""
    members = {"C0": {"topics": ["t"], "owned": {"t": [1, 3]}, "generation": 3}, "C1": {"topics": ["t"]}}
    problem = group({"t": 4}, members)
    assert plan("sticky", problem) == {"C0": {"t": [1, 3]}, "C1": {"t": [0, 2]}}
    assert plan("roundrobin", problem) == {"C0": {"t": [0, 2]}, "C1": {"t": [1, 3]}}


# --- against kafka-python and Kafka's ports -------------------------------------------------------------------


@pytest.mark.parametrize("problem", DIFFERING + IDENTICAL, ids=ids)
def test_range_agrees_with_kafka_python_and_kafkas_range(problem):
    ours = aiokafka_peer.assign_range(problem).to_mapping(problem.member_ids)
    assert ours == kafka_python.assign_range(problem).to_mapping(problem.member_ids)
    assert ours == range_port.assign(problem).to_mapping(problem.member_ids)


@pytest.mark.parametrize("problem", DIFFERING + IDENTICAL, ids=ids)
def test_roundrobin_agrees_with_kafkas_roundrobin(problem):
    ours = aiokafka_peer.assign_roundrobin(problem)
    assert ours.to_mapping(problem.member_ids) == roundrobin_port.assign(problem).to_mapping(problem.member_ids)
    assert not violations(problem, ours)
    assert check_guarantee(ASSIGNORS["roundrobin"].guarantee, problem, ours).kept


@pytest.mark.parametrize("problem", IDENTICAL, ids=ids)
def test_on_identical_subscriptions_all_three_agree_with_kafka_python(problem):
    for name in PORTS:
        ours = aiokafka_peer.aiokafka_assign(name, problem)
        theirs = kafka_python.kafka_python_assign(name, problem)
        assert ours.to_mapping(problem.member_ids) == theirs.to_mapping(problem.member_ids), name
        assert check_guarantee(ASSIGNORS[name].guarantee, problem, ours).kept, name


@pytest.mark.parametrize("problem", DIFFERING, ids=ids)
def test_sticky_keeps_its_guarantee_on_differing_subscriptions(problem):
    ours = aiokafka_peer.assign_sticky(problem)
    check = check_guarantee(ASSIGNORS["sticky"].guarantee, problem, ours)
    assert check.kept, check.reason


# --- findings -------------------------------------------------------------------------------------------------

STALE_CLAIM = group(
    {"t": 1},
    {
        "a": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},  # a zombie: it held t-0 at generation 1
        "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 2},  # t-0's owner at generation 2
    },
)


def test_finding_sticky_gives_a_contested_partition_to_the_stale_claimant():
    """KIP-341 (KAFKA-7026): the claim of the higher generation wins; in aiokafka the first member's does.

    aiokafka 0.14.0's coordinator calls ``on_assignment(assignment)`` and
    never ``on_generation_assignment``, so every member's user data says
    generation -1; ``_init_current_assignments`` then sees two claims of the
    same generation, warns and keeps the first (``a``, JoinGroup order).
    """
    assert plan("sticky", STALE_CLAIM) == {"a": {"t": [0]}}
    assert kafka_python.assign_sticky(STALE_CLAIM).to_mapping(STALE_CLAIM.member_ids)["b"] == {"t": [0]}
    assert sticky_port.assign(STALE_CLAIM).to_mapping(STALE_CLAIM.member_ids)["b"] == {"t": [0]}
    # The reason: given the generations (aiokafka's own _metadata, as its tests do), aiokafka's executor agrees.
    cluster = aiokafka_peer.Cluster({"t": 1})
    members = {
        m.member_id: StickyPartitionAssignor._metadata(sorted(m.topics), [TopicPartition("t", 0)], m.claim_generation)
        for m in STALE_CLAIM.members
    }
    with_generations = aiokafka_peer.run("sticky", cluster, members)
    assert aiokafka_peer.to_mapping(with_generations)["b"] == {"t": [0]}


STATIC = group(
    {"t": 3},
    {"a": {"topics": ["t"], "instance_id": "z"}, "b": {"topics": ["t"], "instance_id": "y"}},
)


def test_finding_range_ignores_group_instance_ids():
    """Kafka's RangeAssignor orders static members by ``group.instance.id`` (KIP-345); aiokafka's by member id.

    aiokafka 0.14.0 supports static membership (``group_instance_id``) but its
    assignors see only ``{member_id: metadata}``: with instance ids ordered
    unlike member ids, the first range goes to another member.  (kafka-python
    does the same.)
    """
    assert plan("range", STATIC) == {"a": {"t": [0, 1]}, "b": {"t": [2]}}
    assert range_port.assign(STATIC).to_mapping(STATIC.member_ids) == {"a": {"t": [2]}, "b": {"t": [0, 1]}}


@pytest.mark.parametrize("problem", DIFFERING[:4], ids=ids)
def test_finding_roundrobin_works_where_kafka_pythons_raises(problem):
    """On differing subscriptions kafka-python's round robin raises ``KeyError``; aiokafka's skips non-subscribers."""
    with pytest.raises(KeyError):
        kafka_python.assign_roundrobin(problem)
    assert not violations(problem, aiokafka_peer.assign_roundrobin(problem))


def test_without_aiokafka_a_peer_says_which_extra_to_install(monkeypatch):
    aiokafka_peer._aiokafka.cache_clear()
    monkeypatch.setitem(sys.modules, "aiokafka.coordinator.assignors.range", None)
    try:
        with pytest.raises(MissingExtra) as err:
            aiokafka_peer.assign_range(TWO_BY_TWO)
        assert isinstance(err.value, aiokafka_peer.PeerNotInstalled)
        assert str(err.value) == (
            "every aiokafka:* peer needs the 'aiokafka' extra (aiokafka is not installed): " + install_hint("aiokafka")
        )
    finally:
        monkeypatch.undo()
        aiokafka_peer._aiokafka.cache_clear()


def test_the_bug_corpus_replays_the_lost_generation():
    """``aiokafka-sticky-no-generation``: the zombie keeps a partition, both generation-2 owners lose theirs;
    Kafka's sticky port and kafka-python's (an independent implementation) keep the owners."""
    from assignment_oracle.compare.scenarios.bugs import replay

    result = replay("aiokafka-sticky-no-generation")
    assert result.as_expected, result.finding
    rows = result.rows[0]
    assert rows["aiokafka:sticky"].assignment.to_mapping(("a", "b", "c"))["c"] == {}
    assert rows["kafka-python:sticky"].assignment.to_mapping(("a", "b", "c")) == {
        "a": {},
        "b": {"t": [0]},
        "c": {"t": [1]},
    }
