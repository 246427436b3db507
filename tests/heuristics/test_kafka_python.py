"""kafka-python's assignors as built-in peers: registered, fed real metadata bytes, judged like the ports.

The extra ``kafka-python`` is installed by ``.ci/run`` (and the README's
commands); these tests need it.
"""

from __future__ import annotations

import sys

import pytest
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.compare.judge.evaluate import evaluate
from assignment_oracle.compare.scenarios.families import generate
from assignment_oracle.heuristics import kafka_python
from assignment_oracle.heuristics.registry import (
    ASSIGNORS,
    CLIENT_PEERS,
    LIVE_PEERS,
    PEERS,
    PORT_OF,
    get_assignor,
    resolve_names,
)
from assignment_oracle.problem.errors import MissingExtra, install_hint
from assignment_oracle.problem.model import Problem

EXAMPLE = next(p for p in bundled_examples() if p.stem == "kip49-example")

# Differing subscriptions, previous owners, members leaving and joining: where the assignors differ.
DIFFERING = [
    generate("random-subsets", seed, members=6, topics=4, subscribe=0.5, previous="random", churn=1)
    for seed in range(12)
]
IDENTICAL = [
    generate("uniform", seed, members=5, topics=3, partitions=(2, 9), previous="balanced", churn=1) for seed in range(8)
]


def test_the_peers_are_registered_next_to_their_ports(capsys):
    assert list(PEERS) == ["kafka-python:range", "kafka-python:roundrobin", "kafka-python:sticky"]
    for peer, port in PORT_OF.items():
        assert get_assignor(peer).guarantee == ASSIGNORS[port].guarantee  # judged like the port
    assert resolve_names(["peers"]) == tuple(PEERS)
    assert set(resolve_names(["all"])).isdisjoint(PEERS)
    assert main(["assignors"]) == 0
    _header, *lines = capsys.readouterr().out.splitlines()
    listed = [line.split()[0] for line in lines if line.split()[1] == "consumer"]  # the Streams ones follow
    clients = list(CLIENT_PEERS)
    assert listed[-9 - len(clients) :] == [*PEERS, *LIVE_PEERS, *clients, "external:COMMAND", "java:CLASS"]


def test_the_sticky_peer_reads_previous_partitions_and_generation_from_real_bytes():
    problem = DIFFERING[0]
    cluster, members = kafka_python.prepare("sticky", problem)
    by_id = {m.member_id: m for m in problem.members}
    for member in members:
        assert isinstance(member.metadata.user_data, (bytes, bytearray)) or member.metadata.user_data == b""
        parsed = StickyPartitionAssignor.parse_member_metadata(member.metadata)
        mine = by_id[member.member_id]
        assert sorted((tp.topic, tp.partition) for tp in parsed.partitions) == sorted(
            (t, p) for t, ps in mine.owned for p in ps
        )
        if mine.owned:
            assert parsed.generation == mine.generation
        assert sorted(parsed.subscription) == sorted(mine.topics)
    assert cluster.topics() == {t.name for t in problem.assignable_topics}


@pytest.mark.parametrize("problem", DIFFERING + IDENTICAL, ids=lambda p: f"{len(p.members)}m{p.total_partitions}p")
def test_range_peer_and_port_give_the_same_assignment(problem):
    """Kafka's RangeAssignor is deterministic given member ids: both ports must agree exactly."""
    peer = evaluate(problem, "kafka-python:range")
    port = evaluate(problem, "range")
    assert peer.status == port.status == "ok"
    assert peer.assignment.to_mapping(problem.member_ids) == port.assignment.to_mapping(problem.member_ids)


@pytest.mark.parametrize("problem", IDENTICAL, ids=lambda p: f"{len(p.members)}m{p.total_partitions}p")
def test_roundrobin_and_sticky_peers_keep_their_guarantee_on_identical_subscriptions(problem):
    for peer in ("kafka-python:roundrobin", "kafka-python:sticky"):
        e = evaluate(problem, peer)
        assert e.status == "ok" and e.verdict.valid
        assert e.guarantee.applies and e.guarantee.kept, (peer, e.guarantee.reason)


def test_the_sticky_peer_against_the_port():
    """Same guarantee class (valid, Kafka's balance condition) everywhere, and mostly the same assignment.

    Both port Kafka's StickyAssignor; where they differ it is a tie broken
    differently (the oracle's gaps of both are reported by the gap report's
    differential table).  On identical subscriptions they agree exactly.
    """
    identical_results = {}
    for label, problems in (("differing", DIFFERING), ("identical", IDENTICAL)):
        same = 0
        for problem in problems:
            peer, port = evaluate(problem, "kafka-python:sticky"), evaluate(problem, "sticky")
            for e in (peer, port):
                assert e.status == "ok" and e.verdict.valid and e.guarantee.kept, (e.assignor, e.guarantee.reason)
            same += peer.assignment.to_mapping(problem.member_ids) == port.assignment.to_mapping(problem.member_ids)
        identical_results[label] = same / len(problems)
    assert identical_results["identical"] == 1
    assert identical_results["differing"] >= 0.75


def test_a_peer_that_raises_is_an_error_row_with_the_exception():
    raised = [evaluate(p, "kafka-python:roundrobin") for p in DIFFERING]
    errors = [e for e in raised if e.status == "error"]
    assert errors, "kafka-python's round robin no longer fails on differing subscriptions: update docs/external.md"
    assert all(e.message.startswith("KeyError: ") for e in errors)
    assert all(e.verdict is None for e in errors)
    # It only promises balance for identical subscriptions, which these groups do not have.
    assert all(not e.guarantee.applies for e in errors)


def test_without_kafka_python_a_peer_says_which_extra_to_install(monkeypatch, capsys):
    """Not a finding about the peer but the install's limit: MissingExtra, and the CLI's exit 2."""
    kafka_python._kafka.cache_clear()
    monkeypatch.setitem(sys.modules, "kafka", None)
    monkeypatch.setitem(sys.modules, "kafka.coordinator.assignors.range", None)
    problem = Problem.from_mapping({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}})
    try:
        for limit in (None, 10):
            with pytest.raises(MissingExtra) as err:
                evaluate(problem, "kafka-python:range", time_limit=limit, isolation="process")
            assert str(err.value) == (
                "every kafka-python:* peer needs the 'kafka-python' extra (kafka is not "
                "installed): " + install_hint("kafka-python")
            )
        code = main(["assign", str(EXAMPLE), "--assignor", "kafka-python:range"])
        err_text = capsys.readouterr().err
        assert code == 2 and err_text.count("\n") == 1 and "'kafka-python' extra" in err_text
    finally:
        monkeypatch.undo()
        kafka_python._kafka.cache_clear()
    assert kafka_python.version() is not None
