"""One contract, every registered assignor (Hypothesis).

* deterministic: the same problem gives the same assignment, byte for byte,
  also when the members and claims are listed in another order;
* valid, with the two documented exceptions: ``sticky-kip54`` reproduces the
  pre-KIP-341 duplicate (and the validity checker names exactly the
  partitions two members claimed), and ``stream-join-sticky`` leaves the
  partitions past the smallest topic unassigned;
* the guarantee each claims, checked by :mod:`compare.judge.guarantees` against
  the oracle, never against the assignor's own code.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_profile import scaled
from strategies import problems, rebalances

from assignment_oracle.compare.judge.guarantees import check_run
from assignment_oracle.heuristics import ASSIGNORS, UnknownAssignor, get_assignor, run
from assignment_oracle.heuristics.stream_join_sticky import assignable_numbers
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations
from assignment_oracle.problem.scenario_json import dumps

NAMES = list(ASSIGNORS)

# Brute-force sized problems with arbitrary (also garbage) claims, and real rebalances.
any_problem = st.one_of(
    problems(max_topics=4, max_partitions=5, max_members=5, max_assignments=None),
    rebalances(),
)


def multiply_claimed(problem: Problem) -> set[tuple[str, int]]:
    """Existing partitions that two or more subscribed members claim (independently computed)."""
    claimants: dict[tuple[str, int], set[str]] = {}
    for m in problem.members:
        for topic, partitions in m.owned:
            if topic in m.topics and topic in problem.partition_counts:
                for p in partitions:
                    if 0 <= p < problem.partition_counts[topic]:
                        claimants.setdefault((topic, p), set()).add(m.member_id)
    return {tp for tp, who in claimants.items() if len(who) > 1}


def shuffled(problem: Problem, order: list[int]) -> Problem:
    """The same problem with members (and each member's claim topics) listed in another order."""
    data = problem.to_mapping()
    names = list(data["members"])
    members = {}
    for i in order:
        entry = dict(data["members"][names[i]])
        if "owned" in entry:
            entry["owned"] = dict(reversed(list(entry["owned"].items())))
        members[names[i]] = entry
    data["members"] = members
    return Problem.from_mapping(data)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=scaled(60))
@given(problem=any_problem, data=st.data())
def test_deterministic(name, problem, data):
    assignor = ASSIGNORS[name]
    once = dumps(assignor.assign(problem).to_mapping(problem.member_ids))
    assert dumps(assignor.assign(problem).to_mapping(problem.member_ids)) == once
    order = data.draw(st.permutations(range(len(problem.members))))
    assert dumps(assignor.assign(shuffled(problem, order)).to_mapping(problem.member_ids)) == once


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=scaled(150))
@given(problem=any_problem)
def test_valid_and_guarantee_kept(name, problem):
    assignor = ASSIGNORS[name]
    result = run(assignor, problem)
    assignment = result.assignment
    found = violations(problem, assignment)
    if name == "sticky-kip54" and multiply_claimed(problem):
        # The pre-KIP-341 bug, reproduced: every partition two members claim
        # stays with both, and the checker names exactly those, nothing else.
        assert {v.kind for v in found} == {"duplicated"}
        named = {(v.topic, p) for v in found for p in v.partitions}
        assert named == multiply_claimed(problem)
        return
    if name == "stream-join-sticky":
        # Only what KIP-315 leaves out: numbers >= n, and partition p of a
        # topic that the member holding number p does not subscribe to.
        assert {v.kind for v in found} <= {"missing"}
        n = assignable_numbers(problem)
        holder = {p: m for m, topics in assignment.members.items() for ps in topics.values() for p in ps}
        for v in found:
            for p in v.partitions:
                assert p >= n or v.topic not in problem.members[problem.member_index[holder[p]]].topics
    else:
        assert found == ()
    promise = check_run(result)  # a cooperative assignor: on every rebalance it took
    assert promise.kept, promise.reason


def test_the_kip341_fix_removes_the_duplicate():
    """KAFKA-7026: c was evicted at generation 1 holding t-0; generation 2 gave
    t-0 to b; c rejoins with its stale claim."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 3},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [1, 2]}, "generation": 2},
                "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 2},
                "c": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
            },
        }
    )
    before = violations(problem, ASSIGNORS["sticky-kip54"].assign(problem))
    assert [(v.kind, v.topic, v.partitions) for v in before] == [("duplicated", "t", (0,))]
    fixed = ASSIGNORS["sticky"].assign(problem)
    assert violations(problem, fixed) == ()
    assert fixed.to_mapping()["b"] == {"t": [0]}  # the generation-2 owner keeps it


def test_registry_names_and_unknown_name():
    assert NAMES == [
        "range",
        "roundrobin",
        "fair",
        "sticky",
        "sticky-kip54",
        "cooperative-sticky",
        "constrained-sticky",
        "server-range",
        "uniform",
        "uniform-4.0.0",
        "kafka4-sticky",
        "kafka4-cooperative-sticky",
        "stream-join-sticky",
    ]
    assert get_assignor("sticky") is ASSIGNORS["sticky"]
    with pytest.raises(UnknownAssignor) as err:
        get_assignor("stiky")
    assert "unknown assignor 'stiky'" in str(err.value) and "cooperative-sticky" in str(err.value)
    for a in ASSIGNORS.values():
        assert a.protocol in {"eager", "cooperative", "consumer"} and a.summary and a.origin


# -- Java's iteration order (registry.in_iteration_order) -----------------------------------------------------------


def _with_topic_ids(problem: Problem) -> Problem:
    """The problem with a Kafka topic id on every topic (the KIP-848 ports need them in Java's order)."""
    import base64
    import hashlib

    data = problem.to_mapping()
    topics = {}
    for name, value in data["topics"].items():
        raw = hashlib.sha256(name.encode()).digest()[:16]
        topic_id = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        topics[name] = {**(value if isinstance(value, dict) else {"partitions": value}), "id": topic_id}
    return Problem.from_mapping({**data, "topics": topics})


@settings(max_examples=scaled(40), deadline=None)
@given(problem=rebalances(), data=st.data())
def test_every_kafka_port_runs_in_javas_order_and_the_order_free_ones_do_not_change(problem, data):
    from assignment_oracle.heuristics.registry import JAVA_ORDER_PORTS, ORDER_FREE_PORTS, in_iteration_order

    problem = _with_topic_ids(problem)
    name = data.draw(st.sampled_from(sorted(JAVA_ORDER_PORTS + ORDER_FREE_PORTS)))
    registered = get_assignor(name)
    in_java = in_iteration_order(registered, "java")
    assert in_java.name == name and in_java.guarantee == registered.guarantee
    result = run(in_java, problem)  # an answer: no port refuses, crashes or hits a TreeBin on these groups
    assert set(result.assignment.to_mapping(problem.member_ids)) == set(problem.member_ids)
    if name in ORDER_FREE_PORTS:
        assert in_java is registered
    assert in_iteration_order(registered, "sorted") is registered


@pytest.mark.parametrize("name", ["fair", "stream-join-sticky", "kafka-python:sticky"])
def test_assignors_that_port_no_kafka_java_refuse_javas_order(name):
    from assignment_oracle.heuristics.registry import in_iteration_order

    with pytest.raises(ValueError, match="does not iterate in Java's order"):
        in_iteration_order(get_assignor(name), "java")


def test_client_library_peers_are_judged_like_the_kafka_class_they_copy():
    from assignment_oracle.heuristics.registry import CLIENT_EXTRAS, CLIENT_PEERS, PORT_OF, resolve_names

    assert resolve_names(["clients"]) == tuple(CLIENT_PEERS)
    assert {name.split(":")[0] for name in CLIENT_PEERS} >= {"aiokafka", "kafkajs", "kafka-node"}
    for name, peer in CLIENT_PEERS.items():
        assert get_assignor(name) is peer and name in CLIENT_EXTRAS
        port = PORT_OF.get(name)
        assert port is None or (peer.guarantee, peer.protocol) == (ASSIGNORS[port].guarantee, ASSIGNORS[port].protocol)
    assert PORT_OF["kafkajs:roundrobin"] == "roundrobin" and PORT_OF["aiokafka:sticky"] == "sticky"
