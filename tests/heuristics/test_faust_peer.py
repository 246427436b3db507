"""faust-streaming 0.15.3's ``PartitionAssignor`` as the peer ``faust:copartitioned``: Faust's own assignor
tests, worked examples derived by hand from its algorithm, properties, and the findings.

Faust's own tests of the assignor are properties, not worked examples:
``tests/meticulous/assignor/test_copartitioned_assignor.py`` (faust-streaming
at the commit whose ``faust/assignor/`` is byte-identical to 0.15.3's; the
repository has no v0.15.3 tag) calls ``CopartitionedAssignor`` on fresh
clients, adds clients, removes clients, and checks validity and stickiness.
They are translated below (each test names the one it translates) to run
through the whole peer (``PartitionAssignor.assign`` as a Faust worker's
leader calls it, ``table_standby_replicas=1``, the default), the previous
round's actives handed over as the scenario's owned partitions.  One
difference: Faust's tests carry the previous standbys over too; a scenario
has none.  Expected values of the worked examples were derived by hand from
Faust's algorithm (keep up to ``ceil(P/N)``, deal the rest round robin over
the members sorted by how many they kept), never from its output.
"""

from __future__ import annotations

import doctest
import logging
import os
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("faust")

from faust.assignor.client_assignment import CopartitionedAssignment  # noqa: E402
from faust.assignor.copartitioned_assignor import CopartitionedAssignor  # noqa: E402

from assignment_oracle.compare.judge.guarantees import GUARANTEES, check_guarantee  # noqa: E402
from assignment_oracle.compare.scenarios.strategies import scenarios  # noqa: E402
from assignment_oracle.heuristics import faust_peer  # noqa: E402
from assignment_oracle.heuristics import sticky as sticky_port  # noqa: E402
from assignment_oracle.problem.errors import MissingExtra, install_hint  # noqa: E402
from assignment_oracle.problem.model import Problem  # noqa: E402
from assignment_oracle.problem.ownership import violations  # noqa: E402

GUARANTEE = faust_peer.GUARANTEE_OF["faust:copartitioned"]


@pytest.fixture(autouse=True)
def _quiet_faust():
    # "Ignoring missing topic" warnings; the tests look at the result.
    logging.getLogger("faust").setLevel(logging.ERROR)
    yield
    logging.getLogger("faust").setLevel(logging.NOTSET)


def group(topics: dict[str, int], members: dict[str, dict]) -> Problem:
    return Problem.from_mapping({"topics": topics, "members": members})


def plan(problem: Problem) -> dict[str, dict[str, list[int]]]:
    """Faust's answer, every member listed (``{}`` for a member that got nothing), partitions sorted."""
    result = faust_peer.assign_copartitioned(problem).to_mapping(problem.member_ids)
    return {m: {t: sorted(ps) for t, ps in topics.items()} for m, topics in result.items()}


def one_topic(partitions: int, owned: dict[str, list[int]], new: tuple[str, ...] = (), topic: str = "t") -> Problem:
    """Members on one topic: ``owned`` members with their previous partitions (generation 1), ``new`` joiners."""
    members: dict[str, dict] = {
        m: {"topics": [topic], "owned": {topic: ps}, "generation": 1} for m, ps in owned.items()
    }
    members.update({m: {"topics": [topic]} for m in new})
    return group({topic: partitions}, members)


def partitions_of(problem: Problem, member: str, topic: str = "t") -> set[int]:
    return set(plan(problem)[member].get(topic, []))


# --- the module ------------------------------------------------------------------------------------------------


def test_the_module_contract():
    assert faust_peer.LIBRARY == faust_peer.EXTRA == "faust"
    assert faust_peer.version() == "0.15.3"
    assert list(faust_peer.STRATEGIES) == ["copartitioned"]
    function, port, summary = faust_peer.STRATEGIES["copartitioned"]
    assert function is faust_peer.assign_copartitioned and port is None and summary.startswith("faust-streaming's ")
    assert set(faust_peer.GUARANTEE_OF) == {"faust:copartitioned"} and GUARANTEE in GUARANTEES


def test_the_docstring_example_runs():
    result = doctest.testmod(faust_peer)
    assert result.attempted > 0 and result.failed == 0


def test_members_send_faust_metadata_as_a_worker_does():
    """Subscription and ``ClientMetadata`` user data (previous actives, no standbys, no generation), decoded
    from the wire in JoinGroup order; the one app is built once and starts nothing."""
    from faust.assignor.client_assignment import ClientMetadata

    problem = group(
        {"x": 3, "y": 3},
        {
            "b": {"topics": ["x", "y"], "owned": {"x": [0, 2], "y": [0, 2]}, "generation": 4},
            "a": {"topics": ["x"]},
        },
    )
    cluster, members = faust_peer.prepare(problem)
    assert list(members) == ["b", "a"]  # JoinGroup order: the group's, as the scenario lists it
    assert cluster.topics() == {"x", "y"}
    by_id = {m.member_id: m for m in problem.members}
    for member_id, metadata in members.items():
        assert sorted(metadata.subscription) == sorted(by_id[member_id].topics)
        client = ClientMetadata.loads(metadata.user_data)
        assert dict(client.assignment.actives) == {t: list(ps) for t, ps in by_id[member_id].owned}
        assert dict(client.assignment.standbys) == {}
        assert client.url == faust_peer.APP_URL
        assert "generation" not in metadata.user_data.decode()
    app = faust_peer._faust()[0]
    assert faust_peer._faust()[0] is app and app.conf.table_standby_replicas == 1


def test_building_the_app_and_assigning_start_no_thread_and_no_event_loop():
    import threading

    faust_peer._faust.cache_clear()
    before = set(threading.enumerate())
    try:
        plan(group({"t": 3}, {"a": {"topics": ["t"], "owned": {"t": [0]}}, "b": {"topics": ["t"]}}))
        assert set(threading.enumerate()) == before
        app = faust_peer._faust()[0]
        assert app._loop is None and app.tables._loop is None  # mode's services never asked for a loop
    finally:
        faust_peer._faust.cache_clear()


def test_without_faust_the_peer_says_which_extra_to_install(monkeypatch):
    faust_peer._faust.cache_clear()
    monkeypatch.setitem(sys.modules, "faust", None)
    try:
        with pytest.raises(MissingExtra) as err:
            faust_peer.assign_copartitioned(one_topic(2, {}, ("a",)))
        assert isinstance(err.value, faust_peer.PeerNotInstalled)
        assert str(err.value) == (
            "the faust:copartitioned peer needs the 'faust' extra (faust is not installed): " + install_hint("faust")
        )
    finally:
        monkeypatch.undo()
        faust_peer._faust.cache_clear()


# --- Faust's own tests (tests/meticulous/assignor/test_copartitioned_assignor.py), through the peer -------------

TOPICS = ("bar", "baz", "foo")  # Faust's tests co-partition {"foo", "bar", "baz"}


def fresh(partitions: int, clients: int) -> Problem:
    """Faust's own clients: ids ``"0"``, ``"1"``, ..., in that order (the group's order, ``"10"`` after ``"9"``)."""
    return group(dict.fromkeys(TOPICS, partitions), {str(i): {"topics": list(TOPICS)} for i in range(clients)})


def then(problem: Problem, previous: dict, members: list[str]) -> Problem:
    """``members`` joining in that order, each claiming what ``previous`` gave it (generation 1)."""
    counts = dict(problem.partition_counts)
    entries = {}
    for m in members:
        entry: dict = {"topics": list(TOPICS)}
        if previous.get(m):
            entry.update(owned=previous[m], generation=1)
        entries[m] = entry
    return group(counts, entries)


def is_valid(problem: Problem, result: dict, partitions: int) -> None:
    """Faust's ``is_valid`` (actives): every partition of each co-partitioned topic once, the same member for
    all three topics."""
    for topic in TOPICS:
        counts = Counter(p for topics in result.values() for p in topics.get(topic, []))
        assert all(n == 1 for n in counts.values()), "Multiple clients assigned to same active"
        assert set(counts) == set(range(partitions))
    for topics in result.values():
        assert len({tuple(sorted(topics.get(t, []))) for t in TOPICS}) == 1
    assert not violations(problem, faust_peer.assign_copartitioned(problem))


@settings(max_examples=40)
@given(partitions=st.integers(1, 64), num_clients=st.integers(1, 40))
def test_fresh_assignment(partitions, num_clients):
    problem = fresh(partitions, num_clients)
    is_valid(problem, plan(problem), partitions)


@settings(max_examples=40)
@given(partitions=st.integers(2, 64), num_clients=st.integers(2, 40))
def test_standby_assignment_terminates(partitions, num_clients):
    """Faust's regression test for a standby livelock: with a standby replica (here the default, 1) the
    assignment terminates and is valid."""
    problem = fresh(partitions, num_clients)
    is_valid(problem, plan(problem), partitions)


@settings(max_examples=40)
@given(partitions=st.integers(1, 64), num_clients=st.integers(2, 32), added=st.integers(1, 16))
def test_add_new_clients(partitions, num_clients, added):
    """With standby replicas (``replicas > 0``): ``client_addition_sticky``, no old client gains a partition."""
    if added >= num_clients:  # Faust's assume(num_additional_clients < num_clients)
        added = num_clients - 1
    first = fresh(partitions, num_clients)
    old = plan(first)
    joined = [str(i) for i in range(num_clients + added)]  # Faust's test adds clients num_clients, ...
    second = then(first, old, joined)
    new = plan(second)
    is_valid(second, new, partitions)
    for client in old:  # client_addition_sticky
        for topic in TOPICS:
            assert set(new[client].get(topic, [])) <= set(old[client].get(topic, []))


@settings(max_examples=40)
@given(partitions=st.integers(1, 64), num_clients=st.integers(3, 40), removed=st.integers(1, 16))
def test_remove_clients(partitions, num_clients, removed):
    """With standby replicas: ``client_removal_sticky``, a client gains only what the removed ones had."""
    removed = min(removed, num_clients - 2)  # Faust's assume(replicas < num_clients - num_removal_clients)
    first = fresh(partitions, num_clients)
    old = plan(first)
    staying = [str(i) for i in range(num_clients - removed)]  # Faust's test removes the last clients
    second = then(first, old, staying)
    new = plan(second)
    is_valid(second, new, partitions)
    for topic in TOPICS:
        freed = {p for client in old if client not in staying for p in old[client].get(topic, [])}
        for client in staying:  # client_removal_sticky
            assert set(new[client].get(topic, [])) <= set(old[client].get(topic, [])) | freed


@settings(max_examples=40)
@given(partitions=st.integers(1, 64), num_clients=st.integers(1, 40))
def test_faust_clients_in_the_groups_order_get_fausts_own_answer(partitions, num_clients):
    """The answer Faust's own tests compute (``CopartitionedAssignor`` on clients ``"0"``, ``"1"``, ... in that
    order; one standby replica, the app's default), through the peer: equal, client by client.  The peer hands
    Faust the members in the group's order (the scenario's); before issue 43 it sorted them by id (``"10"``
    before ``"2"``), and 16 of 30 sampled fresh groups of 2 to 25 clients got another answer."""
    clients = {str(c): CopartitionedAssignment(topics=set(TOPICS)) for c in range(num_clients)}
    own = CopartitionedAssignor(set(TOPICS), clients, partitions, replicas=1).get_assignment()
    answer = plan(fresh(partitions, num_clients))
    assert {c: sorted(a.actives) for c, a in own.items()} == {c: topics.get("foo", []) for c, topics in answer.items()}


# --- worked examples, derived by hand ---------------------------------------------------------------------------


def test_fresh_topics_of_one_size_and_subscribers_are_dealt_round_robin_together():
    """Every member at 0: the sort keeps member order, partitions dealt a, b, c, a, ..."""
    every = ["x", "y"]
    problem = group({"x": 5, "y": 5}, {m: {"topics": every} for m in ("a", "b", "c")})
    assert plan(problem) == {
        "a": {"x": [0, 3], "y": [0, 3]},
        "b": {"x": [1, 4], "y": [1, 4]},
        "c": {"x": [2], "y": [2]},
    }


def test_topics_differing_in_size_or_subscribers_form_separate_groups():
    """``x`` and ``y`` (2 partitions, both members) are one group; ``z`` (2, only ``a``) another, all to
    ``a``; ``w`` (3, both) a third, dealt a, b, a on its own."""
    problem = group(
        {"w": 3, "x": 2, "y": 2, "z": 2},
        {"a": {"topics": ["w", "x", "y", "z"]}, "b": {"topics": ["w", "x", "y"]}},
    )
    assert plan(problem) == {
        "a": {"w": [0, 2], "x": [0], "y": [0], "z": [0, 1]},
        "b": {"w": [1], "x": [1], "y": [1]},
    }


def test_owners_keep_up_to_the_ceiling_and_the_joiner_takes_the_rest():
    """``t`` of 6, ``a`` and ``b`` owning 3 each, ``c`` joining: the ceiling is 2, so each owner keeps two
    of its own and ``c`` (kept 0, first in the deal) gets the two they gave up."""
    problem = one_topic(6, {"a": [0, 1, 2], "b": [3, 4, 5]}, ("c",))
    result = plan(problem)
    a, b, c = (set(result[m]["t"]) for m in "abc")
    assert len(a) == len(b) == len(c) == 2
    assert a < {0, 1, 2} and b < {3, 4, 5} and c == {0, 1, 2, 3, 4, 5} - a - b


def test_a_join_group_of_one_shape_is_co_partitioned_and_a_claim_on_either_topic_is_kept():
    """A join group (``j-a``, ``j-b``, 4 partitions, both members) is one of Faust's groups; ``a`` claimed
    ``j-a`` 1 and 3 only: ``_colocated_partitions`` takes the first topic with claims, and ``a`` keeps
    partitions 1 and 3 of both topics."""
    problem = Problem.from_mapping(
        {
            "topics": {"j-a": 4, "j-b": 4},
            "members": {
                "a": {"topics": ["j-a", "j-b"], "owned": {"j-a": [1, 3]}, "generation": 1},
                "b": {"topics": ["j-a", "j-b"]},
            },
            "join_groups": [["j-a", "j-b"]],
        }
    )
    assert plan(problem) == {"a": {"j-a": [1, 3], "j-b": [1, 3]}, "b": {"j-a": [0, 2], "j-b": [0, 2]}}


# --- properties --------------------------------------------------------------------------------------------------

FAMILIES = ("uniform", "random-subsets", "skewed-sizes", "zipf", "kip49-rolling", "stream-join", "join-groups")


def faust_groups(problem: Problem) -> dict[tuple, list[str]]:
    """Faust's grouping, computed here: subscribed existing topics by (partition count, subscribers)."""
    groups: dict[tuple, list[str]] = {}
    for topic in problem.assignable_topics:
        groups.setdefault((topic.partitions, problem.subscribers[topic.name]), []).append(topic.name)
    return groups


@settings(max_examples=150)
@given(problem=scenarios(FAMILIES, max_members=6, max_topics=5, max_partitions=8))
def test_valid_and_co_partitioned_by_its_own_grouping(problem):
    assignment = faust_peer.assign_copartitioned(problem)
    assert not violations(problem, assignment)
    owner = {
        (t, p): m
        for m, topics in assignment.to_mapping(problem.member_ids).items()
        for t, ps in topics.items()
        for p in ps
    }
    for (count, _), topics in faust_groups(problem).items():
        for p in range(count):
            assert len({owner[(t, p)] for t in topics}) == 1, (topics, p)


@settings(max_examples=100)
@given(problem=scenarios(FAMILIES, max_members=6, max_topics=5, max_partitions=8, previous=False))
def test_a_fresh_group_keeps_its_guarantee(problem):
    check = check_guarantee(GUARANTEE, problem, faust_peer.assign_copartitioned(problem))
    assert check.kept, check.reason


@settings(max_examples=60)
@given(problem=scenarios(("uniform", "random-subsets"), max_members=5, max_topics=3, max_partitions=6))
def test_no_generation_reaches_it(problem):
    """Faust's metadata has no generation: the same claims at any generations give the same answer."""
    import dataclasses

    shifted = dataclasses.replace(
        problem, members=tuple(dataclasses.replace(m, generation=(m.claim_generation + 7) * 3) for m in problem.members)
    )
    assert plan(shifted) == plan(problem)


# --- findings (each test fails once Faust fixes it) --------------------------------------------------------------

NEW_GETS_NOTHING = one_topic(4, {"a": [0, 1], "b": [2, 3]}, ("c",))
DEALT_PAST_THE_LIGHTEST = one_topic(7, {"a": [0, 1], "b": [2, 3]}, ("c",))


def test_finding_a_new_member_gets_nothing():
    """With a standby replica each member keeps up to ``ceil(P/N)``: ``ceil(4/3) = 2``, so ``a`` and ``b``
    keep both of theirs and ``c`` gets nothing (Kafka's sticky gives each at least one)."""
    assert plan(NEW_GETS_NOTHING) == {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}, "c": {}}
    check = check_guarantee(GUARANTEE, NEW_GETS_NOTHING, faust_peer.assign_copartitioned(NEW_GETS_NOTHING))
    assert not check.kept and "[2, 2, 0]" in check.reason
    kafka = sticky_port.assign(NEW_GETS_NOTHING).to_mapping(NEW_GETS_NOTHING.member_ids)
    assert sorted(len(kafka[m].get("t", [])) for m in "abc") == [1, 1, 2]
    # The reason: Faust trims to the floor only without replicas (its own CopartitionedAssignor, replicas=0).
    for replicas, c_gets in ((1, 0), (0, 1)):
        clients = {
            "a": CopartitionedAssignment(actives={0, 1}, topics={"t"}),
            "b": CopartitionedAssignment(actives={2, 3}, topics={"t"}),
            "c": CopartitionedAssignment(topics={"t"}),
        }
        result = CopartitionedAssignor({"t"}, clients, 4, replicas=replicas).get_assignment()
        assert len(result["c"].actives) == c_gets


def test_finding_the_free_partitions_are_dealt_past_the_lightest_member():
    """``ceil(7/3) = 3``: ``a`` and ``b`` keep two each, the three free partitions (4, 5, 6) are dealt once
    around ``c, a, b``: shares 3, 3, 1."""
    assert plan(DEALT_PAST_THE_LIGHTEST) == {"a": {"t": [0, 1, 5]}, "b": {"t": [2, 3, 6]}, "c": {"t": [4]}}
    problem = DEALT_PAST_THE_LIGHTEST
    check = check_guarantee(GUARANTEE, problem, faust_peer.assign_copartitioned(problem))
    assert not check.kept and "[3, 3, 1]" in check.reason


STALE_CLAIM = group(
    {"t": 1},
    {
        "a": {"topics": ["t"], "owned": {"t": [0]}, "generation": 2},  # t-0's owner at generation 2
        "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},  # a zombie: it held t-0 at generation 1
    },
)


def test_finding_a_stale_claim_wins_by_its_place_in_the_join_order():
    """KIP-341: the claim of the higher generation wins.  Faust sees no generation; ``_unassign_overassigned``
    takes a doubly claimed partition from the first claimant in JoinGroup order, so the zombie ``b`` keeps it
    (named the other way round, the owner would)."""
    assert plan(STALE_CLAIM) == {"a": {}, "b": {"t": [0]}}
    assert sticky_port.assign(STALE_CLAIM).to_mapping(STALE_CLAIM.member_ids)["a"] == {"t": [0]}
    swapped = group(
        {"t": 1},
        {
            "a": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
            "b": {"topics": ["t"], "owned": {"t": [0]}, "generation": 2},
        },
    )
    assert plan(swapped) == {"a": {}, "b": {"t": [0]}}


GHOST_CLAIM = one_topic(3, {"a": [5]}, ("b",))
GHOST_CLAIM_ALONE = one_topic(1, {"a": [1]})


def test_finding_a_claim_on_a_partition_that_does_not_exist_is_handed_back():
    """``a`` claims ``t-5`` of a 3-partition topic (recreated smaller): ``_colocated_partitions`` does not
    check the range and ``_unassign_overassigned`` looks only below the count, so ``a`` is assigned ``t-5``;
    the claim also fills one of its ``ceil(3/2) = 2`` slots."""
    assignment = faust_peer.assign_copartitioned(GHOST_CLAIM)
    assert plan(GHOST_CLAIM) == {"a": {"t": [1, 5]}, "b": {"t": [0, 2]}}
    assert any("t-5" in str(v) for v in violations(GHOST_CLAIM, assignment))


def test_finding_a_claim_on_a_partition_that_does_not_exist_can_fail_the_rebalance():
    """Alone on a 1-partition topic, ``a``'s claim on ``t-1`` fills its one slot: ``t-0`` has nowhere to go
    and the leader's ``assign`` raises ``AssertionError`` (the rebalance fails)."""
    with pytest.raises(AssertionError):
        faust_peer.assign_copartitioned(GHOST_CLAIM_ALONE)


DISAGREEING_CLAIMS = group(
    {"x": 2, "y": 2},
    {"a": {"topics": ["x", "y"], "owned": {"x": [0], "y": [1]}, "generation": 1}, "b": {"topics": ["x", "y"]}},
)

_RUN_DISAGREEING = """
import json
from assignment_oracle.heuristics import faust_peer
from assignment_oracle.problem.model import Problem
problem = Problem.from_mapping(json.loads({scenario!r}))
print(json.dumps(faust_peer.{function}(problem).to_mapping(problem.member_ids), sort_keys=True))
"""


def _answers_by_seed(function: str) -> dict[int, dict]:
    """``function`` of faust_peer on DISAGREEING_CLAIMS, run in processes with PYTHONHASHSEED 0 and 1."""
    import json

    code = _RUN_DISAGREEING.format(scenario=json.dumps(DISAGREEING_CLAIMS.to_mapping()), function=function)
    runs = {
        seed: subprocess.Popen(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            stdout=subprocess.PIPE,
            text=True,
        )
        for seed in (0, 1)
    }
    return {seed: json.loads(run.communicate(timeout=120)[0]) for seed, run in runs.items()}


def test_finding_the_answer_depends_on_the_string_hash_seed():
    """``a`` claims ``x-0`` but ``y-1`` (``x``, ``y`` one group): ``_colocated_partitions`` keeps the claims
    of the first topic a ``set`` of names yields, so ``a`` keeps 0 or 1 depending on ``PYTHONHASHSEED``."""
    answers = _answers_by_seed("assign_here")
    assert {a["a"]["x"][0] for a in answers.values()} == {0, 1}
    for a in answers.values():  # each answer, on its own, keeps one of a's claims on both topics
        assert a["a"]["x"] == a["a"]["y"]


def test_the_peer_answers_as_a_process_with_hash_seed_0_does_whatever_the_callers_seed():
    """The oracle's answer may not depend on the process: the peer runs Faust with PYTHONHASHSEED=0 (in
    place when the caller has it, as PySpark's workers do; else in its worker process)."""
    here = _answers_by_seed("assign_here")
    assert _answers_by_seed("assign_copartitioned") == {0: here[0], 1: here[0]}
    if sys.flags.hash_randomization:  # this process (pytest) hashes at random: the worker answers
        assert faust_peer.assign_copartitioned(DISAGREEING_CLAIMS).to_mapping(DISAGREEING_CLAIMS.member_ids) == here[0]
