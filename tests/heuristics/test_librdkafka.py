"""librdkafka's assignors live (heuristics/librdkafka.py): real consumer groups on librdkafka's mock cluster.

Every expectation here comes from Kafka's documented behaviour of the assignor a peer ports (range's
ranges in member order), from the oracle, or from properties of a group (every partition held once,
nothing left running); none is copied from a live run.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

pytest.importorskip("confluent_kafka")  # the librdkafka extra; CI installs it with [all]

from assignment_oracle.cli import main
from assignment_oracle.compare.judge.evaluate import evaluate
from assignment_oracle.compare.scenarios.churn import history_from_mapping, simulate
from assignment_oracle.heuristics import librdkafka
from assignment_oracle.heuristics.registry import ASSIGNORS, LIVE_PEERS, PORT_OF, get_assignor, resolve_names
from assignment_oracle.optimal import solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import Member


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _threads() -> int:
    """Native threads too (librdkafka's own), not only Python's."""
    return len(os.listdir("/proc/self/task"))


def test_the_live_peers_are_registered_next_to_their_ports():
    assert list(LIVE_PEERS) == [
        "librdkafka:range",
        "librdkafka:roundrobin",
        "librdkafka:cooperative-sticky",
        "librdkafka:consumer-protocol",
    ]
    for name in ("librdkafka:range", "librdkafka:roundrobin", "librdkafka:cooperative-sticky"):
        assert get_assignor(name).guarantee == ASSIGNORS[PORT_OF[name]].guarantee  # judged like the port
    assert get_assignor("librdkafka:cooperative-sticky").protocol == "cooperative"
    assert resolve_names(["live"]) == tuple(LIVE_PEERS)
    assert set(resolve_names(["all", "peers"])).isdisjoint(LIVE_PEERS)


def test_a_live_range_group_gives_kafkas_ranges():
    """Range (RangeAssignor's javadoc example: 2 members, 2 topics of 3 partitions): members ordered by
    group.instance.id, the first gets the extra partition of each topic."""
    problem = Problem.from_mapping(
        {"topics": {"t0": 3, "t1": 3}, "members": {"C0": {"topics": ["t0", "t1"]}, "C1": {"topics": ["t0", "t1"]}}}
    )
    e = evaluate(problem, "librdkafka:range", time_limit=30)
    assert e.status == "ok" and e.guarantee.kept
    assert e.assignment.to_mapping() == {"C0": {"t0": [0, 1], "t1": [0, 1]}, "C1": {"t0": [2], "t1": [2]}}
    assert e.message.startswith("librdkafka ") and "partition.assignment.strategy=range" in e.message


def test_compare_prints_the_port_and_the_live_peer(capsys, tmp_path):
    scenario = tmp_path / "group.json"
    scenario.write_text(
        '{"topics": {"orders": 6, "clicks": 4}, "members": {'
        '"a": {"topics": ["orders", "clicks"]}, "b": {"topics": ["orders", "clicks"]}, '
        '"c": {"topics": ["orders"]}}}'
    )
    code = main(["compare", str(scenario), "--assignors", "cooperative-sticky,librdkafka:cooperative-sticky"])
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[3:]}
    assert code == 0 and rows == {"optimum": "ok", "cooperative-sticky": "ok", "librdkafka:cooperative-sticky": "ok"}


@pytest.mark.slow  # live groups: about 7 s (the README's fast suite stays within 4 minutes)
def test_a_rebalance_with_claims_is_judged_on_the_live_groups_own_previous_generation():
    """A live group cannot be handed claims: the claimants form the previous generation live, and the
    row is judged against the optimum of that state."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 6},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1, 2, 3, 4, 5]}, "generation": 3},
                "b": {"topics": ["t"]},
            },
        }
    )
    e = evaluate(problem, "librdkafka:cooperative-sticky", time_limit=30)
    # a alone held all six live, exactly the scenario's claims: judged on the scenario itself.
    assert e.judged_problem is None
    assert e.status == "ok" and tuple(e.verdict.measures["sorted_loads"]) == (3, 3)
    # KIP-429: the moved partitions are revoked first, given in a follow-up rebalance, never held twice.
    assert e.rebalances >= 2 and e.guarantee.kept
    assert e.verdict.measures["retained"] == solve(problem).retained == 3
    # Claims a live group cannot take (b claims what a got) are replaced by the live group's own.
    split = Problem.from_mapping(
        {
            "topics": {"t": 6},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 3},
                "b": {"topics": ["t"], "owned": {"t": [3, 4, 5]}, "generation": 3},
                "c": {"topics": ["t"]},
            },
        }
    )
    e = evaluate(split, "librdkafka:cooperative-sticky", time_limit=30)
    if e.judged_problem is not None:  # the live pair split the topic another way
        held = {m.member_id: m.owned for m in e.judged_problem.members}
        assert sorted(p for owned in held.values() for _, ps in owned for p in ps) == [0, 1, 2, 3, 4, 5]
        assert held["c"] == ()
    assert e.status == "ok" and tuple(e.verdict.measures["sorted_loads"]) == (2, 2, 2)


@pytest.mark.slow  # a live churn history: about 9 s
def test_a_churn_history_runs_through_simulate_on_one_live_group():
    history = history_from_mapping(
        {
            "topics": {"t": 6},
            "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}},
            "rounds": [[{"join": "c", "topics": ["t"]}], [{"leave": "a"}], [{"partitions": "t", "count": 8}]],
        }
    )
    sim = simulate(history, "librdkafka:range", time_limit=30)
    assert sim.completed
    # Each round is judged with that generation's true previous assignment: the live group's previous round.
    for before, after in zip(sim.rounds, sim.rounds[1:]):
        held = {m: ps for m, ps in before.evaluation.assignment.members.items() if ps}
        claims = {m.member_id: dict(m.owned) for m in after.problem.members if m.owned}
        assert {m: {t: tuple(p) for t, p in ps.items()} for m, ps in held.items() if m in claims} == claims
    # Range's per-topic balance holds in every round, and the last round has all 8 partitions.
    assert all(r.evaluation.guarantee.kept for r in sim.rounds)
    assert sum(sim.rounds[-1].evaluation.verdict.measures["sorted_loads"]) == 8
    librdkafka.close_all()


def test_a_group_that_does_not_settle_is_a_timeout_row_with_what_was_seen():
    problem = Problem.from_mapping({"topics": {"t": 4}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    e = evaluate(problem, "librdkafka:roundrobin", time_limit=0.05)
    assert e.status == "timeout" and "did not settle" in e.message and "a:" in e.message
    assert not e.guarantee.kept
    assert get_assignor("librdkafka:roundrobin").assign.group is None  # stopped, not left running


def test_an_interrupted_rebalance_stops_everything_it_started(monkeypatch):
    """Ctrl-C while a group settles: the KeyboardInterrupt reaches the caller and nothing keeps running."""
    librdkafka.close_all()
    fds, threads = _fds(), _threads()
    peer = librdkafka.LivePeer("cooperative-sticky")

    def interrupted(self, expected, time_limit):
        raise KeyboardInterrupt

    monkeypatch.setattr(librdkafka.LiveGroup, "settle", interrupted)
    problem = Problem.from_mapping({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}}})
    with pytest.raises(KeyboardInterrupt):
        peer.rebalance(peer.prepare(problem))
    assert peer.group is None and not list(librdkafka._OPEN)
    _settle_down(fds, threads)


def _settle_down(fds: int, threads: int, wait: float = 10.0) -> None:
    """librdkafka joins its threads asynchronously after destroy: allow a moment, then compare."""
    deadline = time.monotonic() + wait
    while (_fds() > fds or _threads() > threads) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _fds() <= fds, f"file descriptors leaked: {_fds()} > {fds}"
    assert _threads() <= threads, f"threads leaked: {_threads()} > {threads}"


@pytest.mark.slow  # a minute or more of group churn
def test_hundreds_of_small_groups_leak_no_ports_or_threads(monkeypatch):
    """200 live groups one after the other in one process (a sweep's worker does this): afterwards the
    process has no more file descriptors (sockets: the mock broker's port, the members' connections) and
    no more threads (librdkafka's own, counted natively) than before.  Shorter waits than a sweep's:
    what is counted is what is left behind, not how the groups are judged."""
    monkeypatch.setattr(librdkafka, "INITIAL_REBALANCE_DELAY_MS", 30)
    monkeypatch.setattr(librdkafka, "QUIET", 0.12)
    librdkafka.close_all()
    fds, threads = _fds(), _threads()
    python_threads = threading.active_count()
    peer = librdkafka.LivePeer("range")
    for i in range(200):
        members = {f"m{j}": {"topics": ["t"]} for j in range(1 + i % 2)}
        problem = Problem.from_mapping({"topics": {"t": 2 + i % 3}, "members": members})
        settled = peer.rebalance(peer.prepare(problem)).final
        assert sum(len(ps) for ts in settled.members.values() for ps in ts.values()) == 2 + i % 3
        peer.close()
    assert not list(librdkafka._OPEN)
    _settle_down(fds, threads)
    assert threading.active_count() == python_threads


@pytest.mark.slow  # live groups: about 5 s
def test_a_static_bounce_restarts_the_member_under_the_same_instance_id():
    peer = librdkafka.LivePeer("range")
    problem = Problem.from_mapping({"topics": {"t": 4}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    first = peer.rebalance(peer.prepare(problem)).final
    # b restarted: it claims nothing (its state was in memory), a claims what it held.
    again = Problem(
        problem.topics,
        (
            Member("a", frozenset({"t"}), tuple((t, tuple(ps)) for t, ps in first.members["a"].items()), 1),
            Member("b", frozenset({"t"})),
        ),
    )
    assert peer.prepare(again) is again  # the live group holds exactly a's claims: no replay
    final = peer.rebalance(again).final
    assert final.to_mapping() == {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}  # range: same ids, same ranges
    peer.close()
