"""The Go peers (heuristics/go_peers.py, heuristics/go/driver.go): sarama 1.50.1 and kafka-go 0.4.51's own
balancers, checked against the libraries' own tests and against this project's ports of Kafka's assignors.

The driver is built once per machine by the project's install step (the ``go_libraries`` fixture: about a
minute the first time, then reused).  Off Linux x86-64 the module is skipped, except under ``CI``, where it
fails.
"""

from __future__ import annotations

import collections
import json
import subprocess
import time
import urllib.error

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assignment_oracle.compare.judge.guarantees import check_guarantee
from assignment_oracle.compare.scenarios.strategies import rebalances, scenarios
from assignment_oracle.heuristics import go_peers
from assignment_oracle.heuristics import range as kafka_range
from assignment_oracle.heuristics import roundrobin as kafka_roundrobin
from assignment_oracle.heuristics import sticky as kafka_sticky
from assignment_oracle.heuristics.external import ExternalAssignorError
from assignment_oracle.problem.errors import MissingRuntime
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.ownership import violations


@pytest.fixture(autouse=True, scope="module")
def _installed(go_libraries):
    return go_libraries


def as_plain(assignment) -> dict:
    return {m: {t: list(ps) for t, ps in topics.items()} for m, topics in assignment.members.items() if topics}


def assign(strategy: str, scenario: dict) -> dict:
    """The peer's answer as ``{member: {topic: [partitions]}}``, members with nothing left out."""
    return as_plain(go_peers.STRATEGIES[strategy][0](Problem.from_mapping(scenario)))


def both(topics: list[str], *members: str) -> dict:
    return {m: {"topics": topics} for m in members}


def loads(answer: dict) -> dict[str, int]:
    return {m: sum(len(ps) for ps in topics.values()) for m, topics in answer.items()}


def test_install_is_the_pinned_versions_and_idempotent(go_libraries):
    assert (go_peers.version("sarama"), go_peers.version("kafka-go")) == ("1.50.1", "0.4.51")
    assert go_peers.version() == "sarama 1.50.1, kafka-go 0.4.51"
    built = (go_libraries / "driver").stat().st_mtime_ns
    assert go_peers.install() == go_libraries
    assert (go_libraries / "driver").stat().st_mtime_ns == built  # idempotent: nothing rebuilt
    assert go_peers.installed_driver() == go_libraries / "driver"
    with pytest.raises(ValueError, match="unknown Go library"):
        go_peers.version("kafkajs")


def test_the_driver_names_what_it_was_built_from(go_libraries):
    out = subprocess.run([str(go_libraries / "driver"), "versions"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "sarama=1.50.1,kafka-go=0.4.51"


def test_contract():
    assert go_peers.LIBRARY == ("sarama", "kafka-go")
    assert go_peers.EXTRA == "go"
    assert {k: v[1] for k, v in go_peers.STRATEGIES.items()} == {
        "sarama:range": "range",
        "sarama:roundrobin": "roundrobin",
        "sarama:sticky": "sticky",
        "kafka-go:range": "range",
        "kafka-go:roundrobin": "roundrobin",
        "kafka-go:rack-affinity": None,
    }
    assert go_peers.DRIVER_SOURCE.is_file() and go_peers.MANIFEST.is_file()
    assert 'const pinnedSeed = "' in go_peers.RUNTIME_OVERLAY.read_text()  # shipped beside them (go/*.go)
    manifest = json.loads(go_peers.MANIFEST.read_text())
    assert {p["package"] for p in manifest["packages"]} >= {
        "golang-github-ibm-sarama-dev",
        "golang-github-segmentio-kafka-go-dev",
        manifest["go"]["package"],
    }
    assert all(len(p["sha256"]) == 64 and p["filename"].startswith("pool/main/") for p in manifest["packages"])


# -- sarama's own tests (balance_strategy_test.go), translated ----------------------------------------------------


@pytest.mark.parametrize(
    ("members", "topics", "expected"),
    [
        (
            both(["T1", "T2"], "M1", "M2"),
            {"T1": 4, "T2": 4},
            {"M1": {"T1": [0, 1], "T2": [0, 1]}, "M2": {"T1": [2, 3], "T2": [2, 3]}},
        ),
        (
            both(["T1", "T2"], "M3", "M4"),
            {"T1": 4, "T2": 4},
            {"M3": {"T1": [0, 1], "T2": [0, 1]}, "M4": {"T1": [2, 3], "T2": [2, 3]}},
        ),
        (both(["T1"], "M1", "M2", "M3"), {"T1": 1}, {"M1": {"T1": [0]}}),
        (
            both(["T1", "T2"], "M1", "M2"),
            {"T1": 3, "T2": 3},
            {"M1": {"T1": [0, 1], "T2": [0, 1]}, "M2": {"T1": [2], "T2": [2]}},
        ),
        (
            {"M1": {"topics": ["T1"]}, "M2": {"topics": ["T1", "T2"]}},
            {"T1": 2, "T2": 2},
            {"M1": {"T1": [0]}, "M2": {"T1": [1], "T2": [0, 1]}},
        ),
    ],
)
def test_sarama_TestBalanceStrategyRange(members, topics, expected):
    """sarama balance_strategy_test.go, TestBalanceStrategyRange (all cases but the one subscribing to T1 eight
    times: a scenario's subscription names a topic once)."""
    assert assign("sarama:range", {"topics": topics, "members": members}) == expected


@pytest.mark.parametrize(
    ("members", "topics", "expected"),
    [
        (
            both(["T1", "T2", "T3"], "M1", "M2"),
            {"T1": 1, "T2": 1, "T3": 1},
            {"M1": {"T1": [0], "T3": [0]}, "M2": {"T2": [0]}},
        ),
        (
            both(["T1", "T2", "T3"], "M1", "M2"),
            {"T1": 1, "T2": 2, "T3": 4},
            {"M1": {"T1": [0], "T2": [1], "T3": [1, 3]}, "M2": {"T2": [0], "T3": [0, 2]}},
        ),
        (both(["T1"], "M1", "M2"), {"T1": 1}, {"M1": {"T1": [0]}}),
        (both(["T1", "T2", "T3"], "M1"), {"T1": 1, "T2": 1, "T3": 3}, {"M1": {"T1": [0], "T2": [0], "T3": [0, 1, 2]}}),
        (
            {"M1": {"topics": ["T1", "T2", "T3"]}, "M2": {"topics": ["T1"]}},
            {"T1": 1, "T2": 1, "T3": 1},
            {"M1": {"T1": [0], "T2": [0], "T3": [0]}},
        ),
        (
            {"M1": {"topics": ["T1", "T2", "T3"]}, "M2": {"topics": ["T1", "T3"]}},
            {"T1": 1, "T2": 1, "T3": 1},
            {"M1": {"T1": [0], "T2": [0]}, "M2": {"T3": [0]}},
        ),
        (
            both(["T1", "T2", "TT2"], "M", "M2", "M3"),
            {"T1": 1, "T2": 1, "TT2": 1},
            {"M": {"T1": [0]}, "M2": {"T2": [0]}, "M3": {"TT2": [0]}},
        ),
    ],
)
def test_sarama_TestBalanceStrategyRoundRobin(members, topics, expected):
    """sarama balance_strategy_test.go, TestBalanceStrategyRoundRobin, every case."""
    assert assign("sarama:roundrobin", {"topics": topics, "members": members}) == expected


def _fully_balanced(answer: dict, members) -> bool:
    """sarama's verifyFullyBalanced: every member's load within one of every other's."""
    counts = [loads(answer).get(m, 0) for m in members]
    return max(counts) - min(counts) <= 1


def _sticky_checks(scenario: dict) -> dict:
    """sarama's verifyPlanIsBalancedAndSticky and verifyFullyBalanced as this project states them: valid, and
    Kafka's balance condition (the guarantee of ``sticky``), and fully balanced."""
    problem = Problem.from_mapping(scenario)
    answer = go_peers.assign_sarama_sticky(problem)
    assert violations(problem, answer) == ()
    assert check_guarantee("kafka-balance", problem, answer).kept
    plain = as_plain(answer)
    assert _fully_balanced(plain, scenario["members"])
    return plain


@pytest.mark.parametrize(
    "scenario",
    [
        {"topics": {"topic": 3}, "members": both(["topic"], "consumer")},
        {"topics": {"topic": 3, "other": 3}, "members": both(["topic"], "consumer")},
        {"topics": {"topic1": 1, "topic2": 2}, "members": both(["topic1", "topic2"], "consumer")},
        {"topics": {"topic": 1}, "members": both(["topic"], "consumer1", "consumer2")},
        {"topics": {"topic": 2}, "members": both(["topic"], "consumer1", "consumer2")},
        {"topics": {"topic1": 3, "topic2": 3}, "members": both(["topic1", "topic2"], "consumer1", "consumer2")},
    ],
)
def test_sarama_Test_stickyBalanceStrategy_Plan(scenario):
    """sarama balance_strategy_test.go, Test_stickyBalanceStrategy_Plan, its cases with identical subscriptions
    (the test checks validity, balance and full balance, not one plan)."""
    answer = _sticky_checks(scenario)
    assert sum(loads(answer).values()) == sum(
        scenario["topics"][t] for t in set().union(*(m["topics"] for m in scenario["members"].values()))
    )


@pytest.mark.parametrize(("partitions", "owned1", "owned2"), [(12, [4, 11, 8, 5, 9, 2], [1, 3, 0, 7, 10, 6])])
def test_sarama_Test_stickyBalanceStrategy_Plan_two_old_one_new(partitions, owned1, owned2):
    """Test_stickyBalanceStrategy_Plan, "Three consumers (two old, one new) with one topic and twelve
    partitions": generation-1 user data; fully balanced, so the old members each keep four of their six."""
    scenario = {
        "topics": {"topic1": partitions},
        "members": {
            "consumer1": {"topics": ["topic1"], "owned": {"topic1": owned1}, "generation": 1},
            "consumer2": {"topics": ["topic1"], "owned": {"topic1": owned2}, "generation": 1},
            "consumer3": {"topics": ["topic1"]},
        },
    }
    answer = _sticky_checks(scenario)
    assert len(set(answer["consumer1"]["topic1"]) & set(owned1)) == 4
    assert len(set(answer["consumer2"]["topic1"]) & set(owned2)) == 4


def test_sarama_Test_stickyBalanceStrategy_Plan_AssignmentWithConflictingPreviousGenerations():
    """balance_strategy_test.go, ..._AssignmentWithConflictingPreviousGenerations: generation 2 beats 1."""
    _sticky_checks(
        {
            "topics": {"topic1": 6},
            "members": {
                "consumer1": {"topics": ["topic1"], "owned": {"topic1": [0, 1, 4]}, "generation": 1},
                "consumer2": {"topics": ["topic1"], "owned": {"topic1": [0, 2, 3]}, "generation": 1},
                "consumer3": {"topics": ["topic1"], "owned": {"topic1": [3, 4, 5]}, "generation": 2},
            },
        }
    )


def test_sarama_Test_stickyBalanceStrategy_Plan_SchemaBackwardCompatibility():
    """balance_strategy_test.go, ..._SchemaBackwardCompatibility: one member's user data in the old schema
    (StickyAssignorUserDataV0: a claim without a generation), one new member."""
    answer = _sticky_checks(
        {
            "topics": {"topic1": 3},
            "members": {
                "consumer1": {"topics": ["topic1"], "owned": {"topic1": [0, 2]}, "generation": 1},
                "consumer2": {"topics": ["topic1"], "owned": {"topic1": [1]}},
                "consumer3": {"topics": ["topic1"]},
            },
        }
    )
    assert sorted(len(ps) for m in answer.values() for ps in m.values()) == [1, 1, 1]


def test_sarama_Test_stickyBalanceStrategy_Plan_ConflictingPreviousAssignments():
    """balance_strategy_test.go, ..._ConflictingPreviousAssignments: both members claim both partitions in
    generation 1."""
    _sticky_checks(
        {
            "topics": {"topic1": 2},
            "members": {
                m: {"topics": ["topic1"], "owned": {"topic1": [0, 1]}, "generation": 1}
                for m in ("consumer1", "consumer2")
            },
        }
    )


def test_sarama_Test_stickyBalanceStrategy_Plan_KIP54_ExampleTwo():
    """balance_strategy_test.go, ..._KIP54_ExampleTwo: plan 1's per-topic counts, then consumer1 leaves and
    consumer2 takes topic1 beside its topic2, consumer3 keeps topic3."""
    topics = {"topic1": 1, "topic2": 2, "topic3": 3}
    members = {
        "consumer1": {"topics": ["topic1"]},
        "consumer2": {"topics": ["topic1", "topic2"]},
        "consumer3": {"topics": ["topic1", "topic2", "topic3"]},
    }
    plan1 = assign("sarama:sticky", {"topics": topics, "members": members})
    assert [
        len(plan1[m].get(t, [])) for m, t in (("consumer1", "topic1"), ("consumer2", "topic2"), ("consumer3", "topic3"))
    ] == [1, 2, 3]
    second = {
        m: {"topics": members[m]["topics"], "owned": plan1[m], "generation": -1} for m in ("consumer2", "consumer3")
    }
    plan2 = _sticky_checks({"topics": topics, "members": second})
    assert (
        len(plan2["consumer2"]["topic1"]),
        len(plan2["consumer2"]["topic2"]),
        len(plan2["consumer3"]["topic3"]),
    ) == (1, 2, 3)


# -- kafka-go's own tests (groupbalancer_test.go), translated ------------------------------------------------------


@pytest.mark.parametrize(
    ("members", "counts", "expected"),
    [
        ({"a": ["topic-1"]}, {"topic-1": 1}, {"a": {"topic-1": [0]}}),
        ({"a": ["topic-1"]}, {"topic-1": 3}, {"a": {"topic-1": [0, 1, 2]}}),
        ({"a": ["topic-1"], "b": ["topic-1"]}, {"topic-1": 1}, {"b": {"topic-1": [0]}}),
        ({"a": ["topic-1"], "b": ["topic-1"]}, {"topic-1": 3}, {"a": {"topic-1": [0]}, "b": {"topic-1": [1, 2]}}),
        (
            {"a": ["topic-1", "topic-2"], "b": ["topic-2", "topic-3"]},
            {"topic-1": 3, "topic-2": 3, "topic-3": 3},
            {"a": {"topic-1": [0, 1, 2], "topic-2": [0]}, "b": {"topic-2": [1, 2], "topic-3": [0, 1, 2]}},
        ),
    ],
)
def test_kafka_go_TestRangeAssignGroups(members, counts, expected):
    """kafka-go groupbalancer_test.go, TestRangeAssignGroups (all cases but "empty", see test_empty_group): its
    own tests give a topic's extra partitions to the *last* members."""
    scenario = {"topics": counts, "members": {m: {"topics": ts} for m, ts in members.items()}}
    assert assign("kafka-go:range", scenario) == expected


def test_kafka_go_TestRangeAssignGroupsUnbalanced():
    """groupbalancer_test.go, TestRangeAssignGroupsUnbalanced: 66 members, 213 partitions, 3 or 4 each."""
    answer = assign("kafka-go:range", {"topics": {"topic-1": 213}, "members": both(["topic-1"], *map(str, range(66)))})
    assert len(answer) == 66 and set(loads(answer).values()) == {3, 4}


@pytest.mark.parametrize(
    ("members", "counts", "expected"),
    [
        ({"a": ["topic-1"]}, {"topic-1": 1}, {"a": {"topic-1": [0]}}),
        ({"a": ["topic-1"]}, {"topic-1": 3}, {"a": {"topic-1": [0, 1, 2]}}),
        ({"a": ["topic-1"], "b": ["topic-1"]}, {"topic-1": 1}, {"a": {"topic-1": [0]}}),
        (
            {"a": ["topic-1", "topic-2"], "b": ["topic-2", "topic-3"]},
            {"topic-1": 3, "topic-2": 3, "topic-3": 3},
            {"a": {"topic-1": [0, 1, 2], "topic-2": [0, 2]}, "b": {"topic-2": [1], "topic-3": [0, 1, 2]}},
        ),
    ],
)
def test_kafka_go_TestRoundRobinAssignGroups(members, counts, expected):
    """groupbalancer_test.go, TestRoundRobinAssignGroups (all cases but "empty")."""
    scenario = {"topics": counts, "members": {m: {"topics": ts} for m, ts in members.items()}}
    assert assign("kafka-go:roundrobin", scenario) == expected


def _rack_case(member_counts: dict[str, int], partition_counts: dict[str, int]) -> tuple[dict, dict]:
    """TestRackAffinityGroupBalancer/Balance's set-up as a scenario: members ``zone:n`` in ``zone`` (``""``:
    no rack), partitions led by a broker in each zone (``""``: no rack information), one topic ``test``."""
    members: dict[str, dict] = {}
    racks: list[list[str]] = []
    for zone, count in member_counts.items():
        for _ in range(count):
            members[f"{zone}:{len(members) + 1}"] = {"topics": ["test"], "rack": zone or None}
    for zone, count in partition_counts.items():
        racks += [[zone] if zone else []] * count
    scenario = {"topics": {"test": {"partitions": len(racks), "racks": racks}}, "members": members}
    return scenario, {p: (zone[0] if zone else "") for p, zone in enumerate(racks)}


@pytest.mark.parametrize(
    ("member_counts", "partition_counts", "expected"),
    [
        (
            {"": 1, "z1": 1, "z2": 1},
            {"z1": 5, "z2": 4, "": 9},
            {"z1": {"": 1, "z1": 5}, "z2": {"": 2, "z2": 4}, "": {"": 6}},
        ),
        ({"": 5}, {"": 103}, {"": {"": 103}}),
        (
            {"z1": 3, "z2": 3, "z3": 3},
            {"z1": 20, "z2": 19, "z3": 20},
            {"z1": {"z1": 20}, "z2": {"z2": 19}, "z3": {"z3": 20}},
        ),
        ({"z1": 1, "z2": 1, "z3": 1}, {"z1": 7, "z3": 7}, {"z1": {"z1": 5}, "z2": {"z1": 2, "z3": 2}, "z3": {"z3": 5}}),
        (
            {"z1": 5, "z2": 3, "z3": 1},
            {"z1": 9, "z2": 9, "z3": 9},
            {"z1": {"z1": 9, "z3": 6}, "z2": {"z2": 9}, "z3": {"z3": 3}},
        ),
        ({"z2": 10}, {"z1": 20, "z3": 19}, {"z2": {"z1": 20, "z3": 19}}),
    ],
)
def test_kafka_go_TestRackAffinityGroupBalancer_Balance(member_counts, partition_counts, expected):
    """groupbalancer_test.go, TestRackAffinityGroupBalancer/Balance, every case: each member's load within
    the even share, every partition once, and per member zone the partitions taken from each leader zone."""
    scenario, leader_rack = _rack_case(member_counts, partition_counts)
    problem = Problem.from_mapping(scenario)
    answer = go_peers.assign_kafka_go_rack_affinity(problem)
    assert violations(problem, answer) == ()
    total, count = len(leader_rack), len(scenario["members"])
    for member in scenario["members"]:
        assert total // count <= len(answer.members.get(member, {}).get("test", ())) <= -(-total // count)
    per_zone: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for member, topics in answer.members.items():
        for p in topics.get("test", ()):
            per_zone[member.split(":")[0]][leader_rack[p]] += 1
    assert {zone: dict(c) for zone, c in per_zone.items()} == expected


def test_kafka_go_TestRackAffinityGroupBalancer_Multi_Topic():
    """TestRackAffinityGroupBalancer/Multi Topic: its partition ids 1 and 2 are 0 and 1 here (a scenario's
    partitions are numbered from 0; the balancer treats ids as labels)."""
    scenario = {
        "topics": {
            "topic1": {"partitions": 2, "racks": [["z1"], ["z3"]]},
            "topic2": {"partitions": 2, "racks": [["z1"], ["z2"]]},
            "topic3": {"partitions": 2, "racks": [["z3"], ["z2"]]},
        },
        "members": {
            "z1": {"topics": ["topic1", "topic2"], "rack": "z1"},
            "z2": {"topics": ["topic2", "topic3"], "rack": "z2"},
            "z3": {"topics": ["topic3", "topic1"], "rack": "z3"},
        },
    }
    assert assign("kafka-go:rack-affinity", scenario) == {
        "z1": {"topic1": [0], "topic2": [0]},
        "z2": {"topic2": [1], "topic3": [1]},
        "z3": {"topic3": [0], "topic1": [1]},
    }


# -- against this project's ports of Kafka's assignors -------------------------------------------------------------

_PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
_FAMILIES = ("uniform", "random-subsets", "skewed-sizes", "zipf")


def _plain_kafka_group(problem: Problem) -> bool:
    """What these clients express: no static members or racks (neither library reads them), every subscribed
    topic exists."""
    return (
        not problem.missing_topics
        and all(m.instance_id is None and m.rack is None for m in problem.members)
        and all(t.racks is None for t in problem.topics)
    )


@_PROPERTY
@given(scenarios(_FAMILIES, max_members=5, max_topics=3, max_partitions=12))
def test_sarama_range_is_kafkas_range(problem):
    assume(_plain_kafka_group(problem))
    assert go_peers.assign_sarama_range(problem) == kafka_range.assign(problem)


@_PROPERTY
@given(scenarios(_FAMILIES, max_members=5, max_topics=3, max_partitions=10))
def test_sarama_roundrobin_is_kafkas_up_to_ten_partitions_a_topic(problem):
    """Up to ten partitions a topic, ``"t-N"`` strings sort as (topic, N) do (topic names here have no
    characters below ``-``)."""
    assume(_plain_kafka_group(problem))
    assert go_peers.assign_sarama_roundrobin(problem) == kafka_roundrobin.assign(problem)


@_PROPERTY
@given(rebalances(max_members=5, max_topics=3, max_partitions=6))
def test_sarama_sticky_keeps_kafkas_sticky_guarantee(problem):
    """Stale and tied claims included (``rebalances``): valid, and Kafka's balance condition."""
    answer = go_peers.assign_sarama_sticky(problem)
    assert check_guarantee("kafka-balance", problem, answer).kept


def test_sarama_sticky_lets_the_newer_generation_win():
    """A zombie ``z`` rejoins claiming both partitions from generation 1; ``a`` and ``b`` own them in
    generation 2: they keep them, as in Kafka 2.3+ (and this project's port)."""
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 2},
            "members": {
                "a": {"topics": ["t0"], "owned": {"t0": [0]}, "generation": 2},
                "b": {"topics": ["t0"], "owned": {"t0": [1]}, "generation": 2},
                "z": {"topics": ["t0"], "owned": {"t0": [0, 1]}, "generation": 1},
            },
        }
    )
    expected = {"a": {"t0": [0]}, "b": {"t0": [1]}}
    assert as_plain(kafka_sticky.assign(problem)) == expected
    assert as_plain(go_peers.assign_sarama_sticky(problem)) == expected


@st.composite
def _divisible_groups(draw) -> Problem:
    """Groups where every topic's partitions divide evenly among its subscribers."""
    topics = [f"t{i}" for i in range(draw(st.integers(1, 3)))]
    members = [f"m{i}" for i in range(draw(st.integers(1, 5)))]
    subscriptions = {m: draw(st.lists(st.sampled_from(topics), min_size=1, unique=True)) for m in members}
    counts = {}
    for t in topics:
        subscribers = sum(t in s for s in subscriptions.values())
        counts[t] = max(1, subscribers) * draw(st.integers(1, 3))
    return Problem.from_mapping({"topics": counts, "members": {m: {"topics": s} for m, s in subscriptions.items()}})


@_PROPERTY
@given(_divisible_groups())
def test_kafka_go_range_is_kafkas_when_partitions_divide_evenly(problem):
    """Where no topic has extra partitions, kafka-go's range and Kafka's agree: their only difference is who
    gets the extras."""
    assert go_peers.assign_kafka_go_range(problem) == kafka_range.assign(problem)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios(_FAMILIES, max_members=4, max_topics=3, max_partitions=6))
def test_kafka_go_roundrobin_is_kafkas_round_robin_of_each_topic_alone(problem):
    """kafka-go deals each topic on its own: per topic, its answer is Kafka's round robin of that topic alone."""
    assume(_plain_kafka_group(problem))
    answer = go_peers.assign_kafka_go_roundrobin(problem)
    for topic in problem.topics:
        subscribers = {m.member_id: {"topics": [topic.name]} for m in problem.members if topic.name in m.topics}
        if not subscribers:
            continue
        alone = Problem.from_mapping({"topics": {topic.name: topic.partitions}, "members": subscribers})
        expected = {m: ps[topic.name] for m, ps in as_plain(kafka_roundrobin.assign(alone)).items()}
        got = {m: list(ts[topic.name]) for m, ts in answer.members.items() if ts.get(topic.name)}
        assert got == expected


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("racks", max_members=5, max_topics=3, max_partitions=8))
def test_kafka_go_rack_affinity_is_valid(problem):
    assume(not problem.missing_topics)
    assert violations(problem, go_peers.assign_kafka_go_rack_affinity(problem)) == ()


# -- findings, each in its smallest scenario (each test fails once the library is fixed) --------------------------


def test_kafka_go_roundrobin_deals_each_topic_from_the_first_member():
    """Two topics of one partition, identical subscriptions: kafka-go gives both to ``a``; Kafka's round robin
    deals across topics, one each.  Kafka's guarantee (identical subscriptions: most balanced) is broken."""
    problem = Problem.from_mapping({"topics": {"t0": 1, "t1": 1}, "members": both(["t0", "t1"], "a", "b")})
    assert as_plain(kafka_roundrobin.assign(problem)) == {"a": {"t0": [0]}, "b": {"t1": [0]}}
    answer = go_peers.assign_kafka_go_roundrobin(problem)
    assert as_plain(answer) == {"a": {"t0": [0], "t1": [0]}}
    check = check_guarantee("identical-subscriptions-balance", problem, answer)
    assert check.applies and not check.kept


def test_kafka_go_range_gives_the_extra_partitions_to_the_last_members():
    """``t0`` of 3 partitions, ``a`` and ``b``: kafka-go ``a: [0]``, ``b: [1, 2]`` (its own tests expect this);
    Kafka, and kafka-go's doc comment ("5 partitions, 2 consumers: C0: [0, 1, 2]"), ``a: [0, 1]``."""
    problem = Problem.from_mapping({"topics": {"t0": 3}, "members": both(["t0"], "a", "b")})
    assert as_plain(kafka_range.assign(problem)) == {"a": {"t0": [0, 1]}, "b": {"t0": [2]}}
    answer = go_peers.assign_kafka_go_range(problem)
    assert as_plain(answer) == {"a": {"t0": [0]}, "b": {"t0": [1, 2]}}
    assert check_guarantee("per-topic-balance", problem, answer).kept


def test_kafka_go_assigns_nothing_when_one_subscribed_topic_does_not_exist():
    """``a`` subscribes to ``t0`` and ``gone``: the coordinator's metadata request fails for every topic, the
    leader ignores the error and balances no partitions; Kafka gives ``a`` all of ``t0``."""
    problem = Problem.from_mapping({"topics": {"t0": 2}, "members": {"a": {"topics": ["t0", "gone"]}}})
    assert as_plain(kafka_range.assign(problem)) == {"a": {"t0": [0, 1]}}
    for strategy in ("kafka-go:range", "kafka-go:roundrobin", "kafka-go:rack-affinity"):
        answer = go_peers.STRATEGIES[strategy][0](problem)
        assert as_plain(answer) == {}
        assert [(v.kind, v.topic, v.partitions) for v in violations(problem, answer)] == [("missing", "t0", (0, 1))]


def test_sarama_fails_the_rebalance_when_a_subscribed_topic_does_not_exist():
    """sarama's leader asks client.Partitions for every subscribed topic: ErrUnknownTopicOrPartition fails the
    rebalance.  Kafka skips the topic."""
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"a": {"topics": ["t0", "gone"]}}})
    for strategy in ("sarama:range", "sarama:roundrobin", "sarama:sticky"):
        with pytest.raises(ExternalAssignorError, match="does not exist on this broker"):
            go_peers.STRATEGIES[strategy][0](problem)


def test_sarama_roundrobin_orders_partitions_as_strings():
    """One topic of 11 partitions, two members: sarama deals ``t-0, t-1, t-10, t-2, ...``; Kafka deals by
    number.  Both balanced, different answers."""
    problem = Problem.from_mapping({"topics": {"t": 11}, "members": both(["t"], "a", "b")})
    assert as_plain(kafka_roundrobin.assign(problem)) == {"a": {"t": [0, 2, 4, 6, 8, 10]}, "b": {"t": [1, 3, 5, 7, 9]}}
    answer = go_peers.assign_sarama_roundrobin(problem)
    assert as_plain(answer) == {"a": {"t": [0, 3, 5, 7, 9, 10]}, "b": {"t": [1, 2, 4, 6, 8]}}
    assert check_guarantee("identical-subscriptions-balance", problem, answer).kept


@pytest.mark.parametrize("strategy", ["sarama:range", "kafka-go:range"])
def test_static_members_are_ordered_by_member_id(strategy):
    """Kafka (KIP-345) orders static members by ``group.instance.id``; sarama and kafka-go by member id."""
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 2},
            "members": {"a": {"topics": ["t0"], "instance_id": "i2"}, "b": {"topics": ["t0"], "instance_id": "i1"}},
        }
    )
    assert as_plain(kafka_range.assign(problem)) == {"a": {"t0": [1]}, "b": {"t0": [0]}}
    assert as_plain(go_peers.STRATEGIES[strategy][0](problem)) == {"a": {"t0": [0]}, "b": {"t0": [1]}}


def _run_driver(strategy: str, scenario: dict, *arguments: str, env: dict[str, str] | None = None):
    """The driver run on ``scenario`` as a process of its own."""
    driver = go_peers.installed_driver()
    assert driver is not None
    return subprocess.run(
        [str(driver), strategy, *arguments], input=json.dumps(scenario), capture_output=True, text=True, env=env
    )


def _driver(strategy: str, scenario: dict, *arguments: str, env: dict[str, str] | None = None) -> str:
    """The driver's output for ``scenario``, byte for byte."""
    result = _run_driver(strategy, scenario, *arguments, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _plain(output: str) -> dict:
    """The driver's output as :func:`as_plain` writes an answer (partitions sorted)."""
    return {m: {t: sorted(ps) for t, ps in ts.items()} for m, ts in json.loads(output)["assignment"].items()}


def _with_other_random_states(scenario: dict, states: int = 40) -> set[str]:
    """sarama's sticky answers to ``scenario`` with the runtime's generator in ``states`` different states
    (``driver sarama:sticky N``: N values drawn from it first), as real processes' random seeds would put it."""
    return {_driver("sarama:sticky", scenario, str(draws)) for draws in range(states)}


def test_sarama_sticky_answers_depend_on_the_runtimes_random_source():
    """A fresh group, ``t0`` of 3 partitions, ``a`` and ``b``: sarama hands out unassigned partitions in Go map
    order, so the same JoinGroup gets different (each balanced) plans as the runtime's random source differs --
    from run to run in a real group.  Kafka's answer is one; the peer's is one of sarama's (no draws)."""
    scenario = {"topics": {"t0": 3}, "members": both(["t0"], "a", "b")}
    answers = _with_other_random_states(scenario)
    assert len(answers) == 3
    assert all(sorted(loads(_plain(a)).values()) == [1, 2] for a in answers)
    assert assign("sarama:sticky", scenario) in [_plain(a) for a in answers]


def test_sarama_sticky_gives_a_tied_claim_to_whichever_its_map_meets_first():
    """``a`` and ``b`` both claim ``t0-0`` in generation 1: which keeps it depends on the runtime's random
    source; Kafka's answer is one."""
    scenario = {
        "topics": {"t0": 2},
        "members": {m: {"topics": ["t0"], "owned": {"t0": [0]}, "generation": 1} for m in ("a", "b")},
    }
    winners = {next(m for m, ts in _plain(a).items() if 0 in ts["t0"]) for a in _with_other_random_states(scenario)}
    assert winners == {"a", "b"}


def test_the_same_scenario_gets_the_same_answer_in_every_run():
    """The driver pins the runtime's random seed (go/runtime_rand.go): one sticky answer in every process,
    whatever GOMAXPROCS and GOGC."""
    scenario = {
        "topics": {"t0": 7, "t1": 5, "t2": 9},
        "members": {
            "a": {"topics": ["t0", "t1"], "owned": {"t0": [0, 1, 2]}, "generation": 3},
            "b": {"topics": ["t0", "t2"], "owned": {"t0": [0, 3]}, "generation": 3},
            "c": {"topics": ["t0", "t1", "t2"]},
            "d": {"topics": ["t2"]},
        },
    }
    settings_ = [{}, {"GOMAXPROCS": "1"}, {"GOMAXPROCS": "3"}, {"GOGC": "1"}]
    answers = collections.Counter(_driver("sarama:sticky", scenario, env=env) for env in settings_ * 10)
    assert len(answers) == 1
    assert len(_with_other_random_states(scenario, 10)) > 1  # the scenario is one whose answer can vary


@_PROPERTY
@given(st.one_of(rebalances(max_members=5, max_topics=3, max_partitions=8), scenarios(_FAMILIES, max_members=5)))
def test_every_peer_answers_the_same_in_separate_processes(problem):
    """Byte for byte, errors included (sarama fails on a missing topic)."""
    scenario = problem.to_mapping()
    for strategy in go_peers.STRATEGIES:
        first, second = (_run_driver(strategy, scenario) for _ in range(2))
        assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)


# -- the edges ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", sorted(go_peers.STRATEGIES))
def test_empty_group(strategy):
    """kafka-go's TestRangeAssignGroups and TestRoundRobinAssignGroups "empty": no members, no assignment."""
    assert assign(strategy, {"topics": {"t0": 3}, "members": {}}) == {}


def test_not_installed_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"a": {"topics": ["t0"]}}})
    with pytest.raises(go_peers.GoLibrariesNotInstalled) as caught:
        go_peers.assign_sarama_range(problem)
    message = str(caught.value)
    assert "\n" not in message and go_peers.INSTALL_COMMAND in message and "sarama:range" in message
    assert go_peers.version("sarama") is None and go_peers.version() is None


def test_require_is_one_line_before_any_work(tmp_path, monkeypatch):
    go_peers.require("sarama:sticky")  # installed (the fixture): passes
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(go_peers.GoLibrariesNotInstalled, match="sarama:sticky") as caught:
        go_peers.require("sarama:sticky")
    assert caught.value.exit_code == 2 and "\n" not in str(caught.value)


def test_off_linux_x86_64_is_missing_runtime(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(go_peers.platform, "machine", lambda: "aarch64")
    with pytest.raises(MissingRuntime, match="x86-64") as caught:
        go_peers.install(cache=tmp_path / "go")
    assert caught.value.exit_code == 2 and "\n" not in str(caught.value)
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"a": {"topics": ["t0"]}}})
    with pytest.raises(MissingRuntime, match="aarch64"):
        go_peers.assign_kafka_go_range(problem)


def test_a_download_that_does_not_match_its_pin_is_refused(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "pool").mkdir(parents=True)
    (mirror / "pool" / "x.deb").write_bytes(b"not the pinned bytes")
    entry = {"package": "x", "version": "1", "filename": "pool/x.deb", "sha256": "0" * 64}
    debs = tmp_path / "debs"
    debs.mkdir()
    with pytest.raises(RuntimeError, match="does not match the SHA-256"):
        go_peers._fetch(entry, debs, mirror.as_uri(), time.monotonic() + 10)
    assert list(debs.iterdir()) == []


def test_a_toolchain_whose_runtime_is_not_the_overlays_original_is_refused(tmp_path):
    """The overlay replaces Go 1.27.3's runtime/rand.go: another toolchain's file fails the build in one line."""
    goroot = tmp_path / "go"
    (goroot / "src" / "runtime").mkdir(parents=True)
    (goroot / go_peers.RUNTIME_FILE).write_text("package runtime\n")
    with pytest.raises(RuntimeError, match="remake the overlay") as caught:
        go_peers._runtime_overlay(goroot, tmp_path)
    assert "\n" not in str(caught.value) and not (tmp_path / "overlay.json").exists()


def test_a_pin_gone_from_the_pool_names_the_pin_command(tmp_path, monkeypatch):
    def gone(url, timeout):
        raise urllib.error.HTTPError(url, 404, "Not Found", None, None)  # type: ignore[arg-type]

    monkeypatch.setattr(go_peers.urllib.request, "urlopen", gone)
    entry = {"package": "golang-x", "version": "1.0-1", "filename": "pool/main/g/x.deb", "sha256": "0" * 64}
    with pytest.raises(RuntimeError, match="no longer in Debian's pool") as caught:
        go_peers._fetch(entry, tmp_path, "https://deb.example", time.monotonic() + 10)
    assert go_peers.PIN_COMMAND in str(caught.value) and "\n" not in str(caught.value)


# -- through the registry (heuristics/registry.py lists go_peers) -------------------------------------------------


@pytest.mark.parametrize("name", sorted(go_peers.STRATEGIES))
def test_registry_names_the_version_and_checks_the_install(name, tmp_path, monkeypatch):
    from assignment_oracle.heuristics.registry import CLIENT_EXTRAS, library_version, require_installed

    library_version.cache_clear()
    assert CLIENT_EXTRAS[name] == "go"
    assert library_version(name) == {"sarama": "sarama 1.50.1", "kafka-go": "kafka-go 0.4.51"}[name.split(":")[0]]
    require_installed(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(go_peers.GoLibrariesNotInstalled, match=name):
        require_installed(name)
    library_version.cache_clear()


def test_the_cli_install_step_reuses_an_install_and_names_the_versions(capsys):
    from assignment_oracle.cli import main

    assert main(["install-peers", "go"]) == 0  # the fixture installed this manifest's build already
    out = capsys.readouterr().out
    assert out.startswith("sarama 1.50.1, kafka-go 0.4.51 installed in ") and str(go_peers.cache_root()) in out


def test_a_command_naming_a_go_peer_that_is_not_installed_is_one_line_exit_2(capsys, monkeypatch, tmp_path):
    from pathlib import Path

    from assignment_oracle.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    example = str(Path(__file__).parents[2] / "cli" / "examples" / "kip54-example-2-rebalance.json")
    assert main(["compare", example, "--assignors", "range,sarama:sticky"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "install-peers go" in err
