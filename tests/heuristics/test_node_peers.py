"""The Node peers (heuristics/node_peers.py, heuristics/node/adapter.js): kafkajs 2.2.4 and kafka-node 5.0.0's own
assignors, checked against the libraries' own tests and against this project's ports of Kafka's assignors.

The libraries are installed once per session into a private cache (``npm ci`` of the shipped lockfile, a few
seconds).  Without ``node`` the module is skipped, except under ``CI``, where it fails.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from assignment_oracle.compare.scenarios.strategies import scenarios
from assignment_oracle.heuristics import node_peers
from assignment_oracle.heuristics import range as kafka_range
from assignment_oracle.heuristics import roundrobin as kafka_roundrobin
from assignment_oracle.heuristics.external import ExternalAssignorError
from assignment_oracle.problem.errors import MissingRuntime
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.ownership import violations

MISSING = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
MISSING_MESSAGE = f"the Node peers' tests need Node.js: {', '.join(MISSING)} not found on PATH"
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
# Skipped before any fixture runs; under CI the install fixture fails instead.
pytestmark = pytest.mark.skipif(bool(MISSING) and not IN_CI, reason=MISSING_MESSAGE)


@pytest.fixture(scope="session")
def node_cache(tmp_path_factory):
    """An ``XDG_CACHE_HOME`` holding the pinned libraries, installed by the project's own install step."""
    if MISSING:
        pytest.fail(f"{MISSING_MESSAGE} (CI=true: never skipped)", pytrace=False)
    home = tmp_path_factory.mktemp("xdg-cache")
    node_peers.install(cache=home / "assignment-oracle" / "node")
    return home


@pytest.fixture(autouse=True, scope="module")
def _installed(node_cache):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(node_cache))
        yield


def assign(strategy: str, scenario: dict) -> dict:
    """The peer's answer as ``{member: {topic: [partitions]}}``, members with nothing left out."""
    assignment = node_peers.STRATEGIES[strategy][0](Problem.from_mapping(scenario))
    return {m: {t: list(ps) for t, ps in topics.items()} for m, topics in assignment.members.items() if topics}


def as_plain(assignment) -> dict:
    return {m: {t: list(ps) for t, ps in topics.items()} for m, topics in assignment.members.items() if topics}


def both(topics: list[str], *members: str) -> dict:
    return {m: {"topics": topics} for m in members}


def test_install_is_the_pinned_versions_and_idempotent(node_cache):
    assert (node_peers.version("kafkajs"), node_peers.version("kafka-node")) == ("2.2.4", "5.0.0")
    assert node_peers.version() == "kafkajs 2.2.4, kafka-node 5.0.0"
    modules = node_peers.installed_modules(cache=node_cache / "assignment-oracle" / "node")
    before = sorted((p.relative_to(modules), p.stat().st_mtime_ns) for p in modules.glob("*/package.json"))
    again = node_peers.install(cache=node_cache / "assignment-oracle" / "node")
    after = sorted((p.relative_to(modules), p.stat().st_mtime_ns) for p in modules.glob("*/package.json"))
    assert before and after == before  # idempotent: nothing reinstalled
    assert node_peers.installed_modules() == again / "node_modules"
    with pytest.raises(ValueError, match="unknown Node library"):
        node_peers.version("sarama")


def test_contract():
    assert node_peers.LIBRARY == ("kafkajs", "kafka-node")
    assert node_peers.EXTRA == "node"
    assert {k: v[1] for k, v in node_peers.STRATEGIES.items()} == {
        "kafkajs:roundrobin": "roundrobin",
        "kafka-node:range": "range",
        "kafka-node:roundrobin": "roundrobin",
    }
    assert node_peers.ADAPTER.is_file()


# -- the libraries' own tests, translated ---------------------------------------------------------------------


def test_kafkajs_spec_assign_all_topic_partitions_evenly():
    """kafkajs src/consumer/assigners/roundRobinAssigner/index.spec.js, 'assign all topic-partitions evenly'."""
    scenario = {
        "topics": {"topic-A": 14, "topic-B": 5},
        "members": both(["topic-A", "topic-B"], "member-3", "member-1", "member-4", "member-2"),
    }
    assert assign("kafkajs:roundrobin", scenario) == {
        "member-1": {"topic-A": [0, 4, 8, 12], "topic-B": [2]},
        "member-2": {"topic-A": [1, 5, 9, 13], "topic-B": [3]},
        "member-3": {"topic-A": [2, 6, 10], "topic-B": [0, 4]},
        "member-4": {"topic-A": [3, 7, 11], "topic-B": [1]},
    }


def test_kafkajs_spec_assign_topics_with_names_taken_from_builtin_functions():
    """kafkajs index.spec.js, 'assign topics with names taken from builtin functions': topics ``shift`` and
    ``toString`` (the adapter's maps have no prototype: ``{}['toString']`` is a function, and pushing to it was
    ``TypeError: list.push is not a function`` before issue 43)."""
    scenario = {"topics": {"shift": 1, "toString": 1}, "members": both(["shift", "toString"], "member-1")}
    assert assign("kafkajs:roundrobin", scenario) == {"member-1": {"shift": [0], "toString": [0]}}
    scenario = {"topics": {"constructor": 2}, "members": both(["constructor"], "a", "b")}
    assert assign("kafkajs:roundrobin", scenario) == {"a": {"constructor": [0]}, "b": {"constructor": [1]}}


KAFKA_NODE_TOPICS = ["RebalanceTopic", "RebalanceTest"]


@pytest.mark.parametrize(
    ("consumers", "expected"),
    [
        (2, {"consumer1": [0, 1], "consumer2": [2]}),
        (3, {"consumer1": [0], "consumer2": [1], "consumer3": [2]}),
        (4, {"consumer1": [0], "consumer2": [1], "consumer3": [2]}),
    ],
)
def test_kafka_node_range_tests(consumers, expected):
    """kafka-node test/assignment/test.range.js: two topics of three partitions, 2, 3 and 4 consumers (each
    topic split alike; consumer4 gets nothing)."""
    members = both(KAFKA_NODE_TOPICS, *(f"consumer{i}" for i in range(1, consumers + 1)))
    answer = assign("kafka-node:range", {"topics": dict.fromkeys(KAFKA_NODE_TOPICS, 3), "members": members})
    assert answer == {m: dict.fromkeys(KAFKA_NODE_TOPICS, ps) for m, ps in expected.items()}


@pytest.mark.parametrize(
    ("consumers", "expected"),
    [
        (
            ["consumer1", "consumer2"],
            {
                "consumer1": {"RebalanceTopic": [0, 2], "RebalanceTest": [1]},
                "consumer2": {"RebalanceTopic": [1], "RebalanceTest": [0, 2]},
            },
        ),
        (
            ["consumer1", "consumer3", "consumer2"],
            {f"consumer{i}": {"RebalanceTopic": [i - 1], "RebalanceTest": [i - 1]} for i in (1, 2, 3)},
        ),
        (
            ["consumer1", "consumer3", "consumer2", "consumer4"],
            {
                "consumer1": {"RebalanceTopic": [0], "RebalanceTest": [1]},
                "consumer2": {"RebalanceTopic": [1], "RebalanceTest": [2]},
                "consumer3": {"RebalanceTopic": [2]},
                "consumer4": {"RebalanceTest": [0]},
            },
        ),
    ],
)
def test_kafka_node_roundrobin_tests(consumers, expected):
    """kafka-node test/assignment/test.roundrobin.js, 2, 3 and 4 consumers, literally: its topicPartition lists
    RebalanceTopic before RebalanceTest and kafka-node deals topics in that (the metadata's) order, so the
    scenario lists them so, and its members in the test's order.  Before issue 43 the peer dealt topics in
    name order and the 2- and 4-consumer tests' answers differed."""
    scenario = {"topics": {"RebalanceTopic": 3, "RebalanceTest": 3}, "members": both(KAFKA_NODE_TOPICS, *consumers)}
    assert assign("kafka-node:roundrobin", scenario) == expected


def test_the_node_peers_receive_the_groups_order_even_for_integer_like_names():
    """Members in the group's join order and topics in the scenario's order reach the adapter as lists: a
    JavaScript object would put integer-like keys ("10" before "9") first.  kafka-node deals topic ``9`` (listed
    first) before ``10``; kafkajs's leader is the first member to join."""
    scenario = {"topics": {"9": 1, "10": 1, "x": 1}, "members": both(["10", "9", "x"], "m")}
    assert list(Problem.from_mapping(scenario).topic_listing) == ["9", "10", "x"]
    scenario = {"topics": {"x": 1, "10": 1, "9": 1}, "members": both(["10", "9", "x"], "b", "a")}
    answer = assign("kafka-node:roundrobin", scenario)
    assert answer == {"a": {"x": [0], "9": [0]}, "b": {"10": [0]}}  # x, 10, 9 dealt to a, b, a
    only_leader = {"topics": {"s": 2, "t": 1}, "members": {"b": {"topics": ["s"]}, "a": {"topics": ["t"]}}}
    assert assign("kafkajs:roundrobin", only_leader) == {"a": {"s": [0]}, "b": {"s": [1]}}  # b leads: its topics


# -- the known finding: kafkajs ignores subscriptions ---------------------------------------------------------


def test_kafkajs_roundrobin_gives_a_partition_of_a_topic_the_member_never_subscribed_to():
    """The leader (``a``, first by id) subscribes to ``t0``; ``b`` to ``t1``.  kafkajs deals the leader's topics
    to every member: ``t0-1`` goes to ``b``, and ``t1`` (nobody else's) to nobody."""
    problem = Problem.from_mapping(
        {"topics": {"t0": 2, "t1": 1}, "members": {"a": {"topics": ["t0"]}, "b": {"topics": ["t1"]}}}
    )
    answer = node_peers.assign_kafkajs_roundrobin(problem)
    assert as_plain(answer) == {"a": {"t0": [0]}, "b": {"t0": [1]}}
    assert [(v.kind, v.topic, v.partitions, v.member_id) for v in violations(problem, answer)] == [
        ("not-subscribed", "t0", (1,), "b"),
        ("missing", "t1", (0,), None),
    ]
    # Kafka's round robin skips non-subscribers: valid.
    assert violations(problem, kafka_roundrobin.assign(problem)) == ()


# -- kafka-node against this project's ports of Kafka's assignors ---------------------------------------------

_PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
_FAMILIES = ("uniform", "random-subsets", "skewed-sizes", "zipf")


def _plain_kafka_group(problem: Problem) -> bool:
    """What a kafka-node group can express: no static members, no racks (JoinGroup v0, metadata v0), and
    every subscribed topic exists."""
    return (
        not problem.missing_topics
        and all(m.instance_id is None and m.rack is None for m in problem.members)
        and all(t.racks is None for t in problem.topics)
    )


@pytest.mark.slow  # one Node process per example: about 8 s
@_PROPERTY
@given(scenarios(_FAMILIES, max_members=5, max_topics=3, max_partitions=6))
def test_kafka_node_range_is_kafkas_range(problem):
    assume(_plain_kafka_group(problem))
    assert node_peers.assign_kafka_node_range(problem) == kafka_range.assign(problem)


@pytest.mark.slow  # one Node process per example: about 7 s
@_PROPERTY
@given(scenarios("uniform", max_members=5, max_topics=3, max_partitions=6))
def test_kafka_node_roundrobin_is_kafkas_on_identical_subscriptions(problem):
    assume(_plain_kafka_group(problem))
    assert node_peers.assign_kafka_node_roundrobin(problem) == kafka_roundrobin.assign(problem)


# -- other differences from Kafka's assignors, each in its smallest scenario -------------------------------------


def test_kafka_node_roundrobin_puts_integer_like_topic_names_first():
    """A JavaScript object lists integer-like keys ("9") first, in numeric order: kafka-node deals ``9`` before
    ``10``; Kafka sorts names as strings ("10" < "9")."""
    problem = Problem.from_mapping({"topics": {"10": 1, "9": 1}, "members": both(["10", "9"], "a", "b")})
    assert as_plain(kafka_roundrobin.assign(problem)) == {"a": {"10": [0]}, "b": {"9": [0]}}
    assert as_plain(node_peers.assign_kafka_node_roundrobin(problem)) == {"a": {"9": [0]}, "b": {"10": [0]}}


def test_kafka_node_roundrobin_deals_topics_in_metadata_order():
    """kafka-node deals topics in the metadata's order (the scenario's topic order stands for it), Kafka in
    name order: the scenario lists ``t1`` first, so kafka-node deals ``t1`` first."""
    problem = Problem.from_mapping(
        {
            "topics": {"t1": 1, "t0": 1},
            "members": {"a": {"topics": ["t1"]}, "b": {"topics": ["t0"]}, "c": {"topics": ["t1"]}},
        }
    )
    assert as_plain(kafka_roundrobin.assign(problem)) == {"b": {"t0": [0]}, "c": {"t1": [0]}}
    assert as_plain(node_peers.assign_kafka_node_roundrobin(problem)) == {"a": {"t1": [0]}, "b": {"t0": [0]}}


def test_kafka_node_range_fails_on_a_subscribed_topic_that_does_not_exist():
    """kafka-node's metadata omits a topic the broker does not have; range.js reads its length: TypeError.
    Kafka's range skips the topic."""
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"a": {"topics": ["t0", "gone"]}}})
    assert as_plain(kafka_range.assign(problem)) == {"a": {"t0": [0]}}
    with pytest.raises(ExternalAssignorError, match="TypeError"):
        node_peers.assign_kafka_node_range(problem)
    assert as_plain(node_peers.assign_kafka_node_roundrobin(problem)) == {"a": {"t0": [0]}}


def test_kafka_node_orders_static_members_by_member_id():
    """Kafka (KIP-345) orders static members by ``group.instance.id``; kafka-node by member id only."""
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 2},
            "members": {"a": {"topics": ["t0"], "instance_id": "i2"}, "b": {"topics": ["t0"], "instance_id": "i1"}},
        }
    )
    assert as_plain(kafka_range.assign(problem)) == {"a": {"t0": [1]}, "b": {"t0": [0]}}
    assert as_plain(node_peers.assign_kafka_node_range(problem)) == {"a": {"t0": [0]}, "b": {"t0": [1]}}


# -- the edges ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", sorted(node_peers.STRATEGIES))
def test_empty_group(strategy):
    assert assign(strategy, {"topics": {"t0": 3}, "members": {}}) == {}


def test_not_installed_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"a": {"topics": ["t0"]}}})
    with pytest.raises(node_peers.NodeLibrariesNotInstalled) as caught:
        node_peers.assign_kafka_node_range(problem)
    message = str(caught.value)
    assert "\n" not in message and node_peers.INSTALL_COMMAND in message and "kafka-node:range" in message
    assert node_peers.version("kafkajs") is None and node_peers.version() is None


def test_missing_node_is_missing_runtime(monkeypatch):
    monkeypatch.setattr(node_peers.shutil, "which", lambda name: None)
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"a": {"topics": ["t0"]}}})
    with pytest.raises(MissingRuntime, match="'node'") as caught:
        node_peers.assign_kafkajs_roundrobin(problem)
    assert caught.value.exit_code == 2 and "\n" not in str(caught.value)
    with pytest.raises(MissingRuntime, match="'npm'"):
        node_peers.install(cache=node_peers.cache_root().parent / "elsewhere")


def test_the_cli_install_step_reuses_an_install_and_names_the_versions(capsys):
    from assignment_oracle.cli import main

    assert main(["install-peers", "node"]) == 0  # the fixture's XDG_CACHE_HOME already holds this lockfile's
    out = capsys.readouterr().out
    assert out.startswith("kafkajs 2.2.4, kafka-node 5.0.0 installed in ") and str(node_peers.cache_root()) in out


def test_the_cli_install_step_without_npm_is_one_line_exit_2(capsys, monkeypatch, tmp_path):
    from assignment_oracle.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["install-peers", "node"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "npm" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "{example}", "--assignors", "range,clients"],
        ["compare", "{example}", "--assignors", "kafka-node:roundrobin"],
        ["assign", "{example}", "--assignor", "kafkajs:roundrobin"],
        ["explain", "{example}", "--assignor", "kafka-node:range"],
        ["simulate", "rolling-restart-zombie", "--assignor", "kafka-node:range"],
    ],
)
@pytest.mark.parametrize("missing", ["libraries", "node"])
def test_a_command_naming_a_node_peer_that_cannot_run_is_one_line_exit_2(argv, missing, capsys, monkeypatch, tmp_path):
    from assignment_oracle.cli import main

    if missing == "libraries":
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # nothing installed there
    else:
        monkeypatch.setattr(node_peers.shutil, "which", lambda name: None)
    example = str(Path(__file__).parents[2] / "cli" / "examples" / "kip54-example-2-rebalance.json")
    assert main([a.format(example=example) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1  # before any row: not a column of error rows
    assert (node_peers.INSTALL_COMMAND if missing == "libraries" else "'node'") in err


def test_a_sweep_row_records_the_node_librarys_version():
    from assignment_oracle.compare.sweep.rows import _row
    from assignment_oracle.heuristics.registry import library_version

    library_version.cache_clear()  # the fixture's cache, not whatever an earlier test saw
    base = {"version": "assignment-oracle 0.1.0"}
    assert _row(base, assignor="kafkajs:roundrobin")["version"] == "assignment-oracle 0.1.0; kafkajs 2.2.4"
    assert _row(base, assignor="kafka-node:range")["version"] == "assignment-oracle 0.1.0; kafka-node 5.0.0"
    assert _row(base, assignor="range")["version"] == "assignment-oracle 0.1.0"
