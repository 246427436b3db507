"""``capture`` against a coordinator speaking Kafka's wire protocol on 127.0.0.1 (tests/capture_coordinator.py).

Each group is defined here as Kafka's describe APIs report it; the expected scenario and candidate are
written out by hand from the rules of compare/capture/group.py (which Kafka assignor reads what), and
capture must reproduce them field for field.  ``capture --judge`` must give ``check``'s verdict on the
hand-written files.  Failures (bad address, nobody answering, SASL refused, unknown, dead and empty
groups) are one line and exit 2, within a bounded time, and no secret of ``--command-config`` appears
anywhere.  ``ASSIGNMENT_ORACLE_BOOTSTRAP`` (and ``ASSIGNMENT_ORACLE_GROUP``) opt in to a real cluster.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("kafka", reason="the capture extra (kafka-python)")

from capture_coordinator import (  # noqa: E402
    READ_ONLY,
    Broker,
    ClassicGroup,
    ClassicMember,
    ConsumerGroup,
    ConsumerMember,
    Coordinator,
    ShareGroup,
    ShareMember,
    StreamsGroup,
    StreamsMember,
    Subtopology,
    Topic,
    sticky_user_data,
)

from assignment_oracle.cli import main  # noqa: E402
from assignment_oracle.compare.capture import capture_group, judge_capture  # noqa: E402
from assignment_oracle.compare.capture.client_config import parse_properties, read_properties  # noqa: E402
from assignment_oracle.compare.capture.messages import sticky_previous_assignment  # noqa: E402
from assignment_oracle.problem.errors import InputError, install_hint  # noqa: E402
from assignment_oracle.problem.formats import FORMATS  # noqa: E402
from assignment_oracle.problem.scenario_json import uuid_bits  # noqa: E402

#: A topic id from Kafka's own UuidTest (d79bd50), as Uuid.toString() prints it.
KAFKA_ID = "UXyU9i5ARn6W00ON2taeWA"
ORDERS_ID = uuid.UUID(bytes=base64.urlsafe_b64decode(KAFKA_ID + "=="))

#: Three brokers in three racks; orders: 4 partitions, clicks: 2.
BROKERS = (Broker(0, "az-a"), Broker(1, "az-b"), Broker(2, "az-c"))
TOPICS = (
    Topic("orders", ((0, 1), (1, 2), (2, 0), (0, 2)), ORDERS_ID),
    Topic("clicks", ((1,), (2,))),
)
ORDERS_RACKS = [["az-a", "az-b"], ["az-b", "az-c"], ["az-c", "az-a"], ["az-a", "az-c"]]
CLICKS = {"partitions": 2, "racks": [["az-b"], ["az-c"]]}
ORDERS = {"partitions": 4, "racks": ORDERS_RACKS, "id": KAFKA_ID}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("assignment-oracle: error: "), err
    assert "Traceback" not in err and out == ""
    return lines[0]


# -- classic groups: what each Kafka assignor reads ---------------------------------------------------------

RANGE_GROUP = ClassicGroup(
    "orders-range",
    "range",
    (
        # v3: owned partitions, generation and rack in the subscription; user data passed through untouched.
        ClassicMember(
            "c1-7f3a",
            ("orders", "clicks"),
            {"orders": [0, 1], "clicks": [0]},
            owned={"orders": [0, 1]},
            generation=7,
            rack="az-a",
            user_data=b"\x00\xffopaque",
            instance_id="host-1",
            client_id="billing",
            client_host="/10.0.0.1",
        ),
        # v1: owned partitions, no generation (Kafka: Optional.empty(), written as none), no rack.
        ClassicMember("c2-91bc", ("orders",), {"orders": [2, 3]}, owned={"orders": [2]}, version=1),
        # v0: topics and user data only; its assignment carries user data too.
        ClassicMember("c3-0d11", ("clicks",), {"clicks": [1]}, version=0, assignment_user_data=b"\x01\x02"),
    ),
)
RANGE_SCENARIO = {
    "topics": {"clicks": CLICKS, "orders": ORDERS},
    "members": {
        "c1-7f3a": {
            "topics": ["clicks", "orders"],
            "owned": {"orders": [0, 1]},
            "generation": 7,
            "rack": "az-a",
            "instance_id": "host-1",
        },
        "c2-91bc": {"topics": ["orders"], "owned": {"orders": [2]}},
        "c3-0d11": {"topics": ["clicks"]},
    },
}
RANGE_ASSIGNMENT = {
    "c1-7f3a": {"clicks": [0], "orders": [0, 1]},
    "c2-91bc": {"orders": [2, 3]},
    "c3-0d11": {"clicks": [1]},
}

# StickyAssignor (eager): owned partitions and generation travel in its user data (V1 with a generation,
# V0 without); the subscription's own owned partitions are empty (revoked before joining).
STICKY_GROUP = ClassicGroup(
    "orders-sticky",
    "sticky",
    (
        ClassicMember(
            "s1",
            ("orders",),
            {"orders": [0, 1]},
            user_data=sticky_user_data({"orders": [0, 3]}, 4),
            generation=5,
        ),
        ClassicMember("s2", ("orders",), {"orders": [2, 3]}, user_data=sticky_user_data({"orders": [1]}, None)),
        ClassicMember("s3", ("orders",), {}, user_data=b"\x07"),  # unreadable: Kafka ignores it
    ),
)
STICKY_SCENARIO = {
    "topics": {"orders": ORDERS},
    "members": {
        "s1": {"topics": ["orders"], "owned": {"orders": [0, 3]}, "generation": 4},
        "s2": {"topics": ["orders"], "owned": {"orders": [1]}},
        "s3": {"topics": ["orders"]},
    },
}

# CooperativeStickyAssignor with a v1 subscription: owned partitions from it, the generation from its user
# data (COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0: one int32).
COOPERATIVE_GROUP = ClassicGroup(
    "orders-coop",
    "cooperative-sticky",
    (
        ClassicMember(
            "k1", ("orders",), {"orders": [0, 1]}, owned={"orders": [0, 1, 2]}, version=1, user_data=b"\x00\x00\x00\x09"
        ),
        ClassicMember("k2", ("orders",), {"orders": [3]}, owned={"orders": [3]}, generation=9, version=2),
    ),
)
COOPERATIVE_SCENARIO = {
    "topics": {"orders": ORDERS},
    "members": {
        "k1": {"topics": ["orders"], "owned": {"orders": [0, 1, 2]}, "generation": 9},
        "k2": {"topics": ["orders"], "owned": {"orders": [3]}, "generation": 9},
    },
}

# -- a KIP-848 consumer group: owned = what members hold now, the candidate = the target --------------------

CONSUMER_GROUP = ConsumerGroup(
    "orders-848",
    "uniform",
    (
        ConsumerMember(
            "u1",
            ("orders", "gone"),
            {"orders": [0, 1, 2]},
            {"orders": [0, 1]},
            epoch=12,
            rack="az-b",
            instance_id="i-1",
        ),
        ConsumerMember("u2", ("orders", "clicks"), {"clicks": [0, 1]}, {"orders": [2], "clicks": [0, 1]}, epoch=11),
        ConsumerMember("u3", ("orders",), {}, {"orders": [3]}, epoch=12, regex="ord.*", member_type=0),
    ),
    epoch=12,
    assignment_epoch=12,
)
CONSUMER_SCENARIO = {
    # "gone" is subscribed but not in the cluster: left out of topics (the format's missing_topics).
    "topics": {"clicks": CLICKS, "orders": ORDERS},
    "members": {
        "u1": {
            "topics": ["gone", "orders"],
            "owned": {"orders": [0, 1, 2]},
            "generation": 12,
            "rack": "az-b",
            "instance_id": "i-1",
        },
        "u2": {"topics": ["clicks", "orders"], "owned": {"clicks": [0, 1]}, "generation": 11},
        "u3": {"topics": ["orders"]},
    },
}
CONSUMER_TARGET = {"u1": {"orders": [0, 1]}, "u2": {"clicks": [0, 1], "orders": [2]}, "u3": {"orders": [3]}}

# -- a Streams group: tasks, offsets, tags, its group configs -------------------------------------------------

STREAMS_GROUP = StreamsGroup(
    "orders-app",
    (
        Subtopology("0", ("orders",), changelog_topics=("orders-app-store-changelog",), repartition_sink_topics=("r",)),
        Subtopology("1", ("clicks",), repartition_source_topics=(("orders-app-repartition", 6),)),
    ),
    (
        StreamsMember(
            "p1-t1",
            "process-1",
            active={"0": [0, 1], "1": [0, 1, 2]},
            standby={"0": [2]},
            warmup={"0": [3]},
            target_active={"0": [0, 1], "1": [0, 1, 2]},
            target_standby={"0": [2, 3]},
            target_warmup={"0": [3]},
            client_tags={"zone": "a"},
            task_offsets={"0": {0: 100, 1: 90, 2: 50, 3: 10}},
            task_end_offsets={"0": {0: 120, 1: 90, 2: 60, 3: 80}},
            rack="az-a",
            instance_id="stream-1",
            epoch=3,
        ),
        StreamsMember(
            "p2-t1",
            "process-2",
            active={"0": [2, 3], "1": [3, 4, 5]},
            standby={"0": [0, 1]},
            target_active={"0": [2, 3], "1": [3, 4, 5]},
            target_standby={"0": [0, 1]},
            client_tags={"zone": "b"},
            epoch=3,
        ),
    ),
    configs={"streams.num.standby.replicas": "1", "streams.rack.aware.assignment.tags": "zone"},
)
STREAMS_SCENARIO = {
    "kind": "streams",
    # subtopology 1: clicks has 2 partitions, its repartition source topic 6: six tasks.
    "subtopologies": {"0": {"tasks": 4, "stateful": True}, "1": {"tasks": 6, "stateful": False}},
    "standby_replicas": 1,
    "rack_aware_tags": ["zone"],
    "members": {
        "p1-t1": {
            "process": "process-1",
            "instance_id": "stream-1",
            "rack": "az-a",
            "client_tags": {"zone": "a"},
            "active": {"0": [0, 1], "1": [0, 1, 2]},
            "standby": {"0": [2]},
            "warmup": {"0": [3]},
            "task_offsets": {"0": {"0": 100, "1": 90, "2": 50, "3": 10}},
            "task_end_offsets": {"0": {"0": 120, "1": 90, "2": 60, "3": 80}},
        },
        "p2-t1": {
            "process": "process-2",
            "client_tags": {"zone": "b"},
            "active": {"0": [2, 3], "1": [3, 4, 5]},
            "standby": {"0": [0, 1]},
        },
    },
}
STREAMS_TARGET = {
    "members": {
        "p1-t1": {"active": {"0": [0, 1], "1": [0, 1, 2]}, "standby": {"0": [2, 3]}},
        "p2-t1": {"active": {"0": [2, 3], "1": [3, 4, 5]}, "standby": {"0": [0, 1]}},
    }
}

SHARE_GROUP = ShareGroup(
    "orders-share",
    (
        ShareMember("h1", ("orders", "gone"), {"orders": [0, 1, 2, 3]}, rack="az-c"),
        ShareMember("h2", ("orders", "clicks"), {"orders": [1, 2]}, epoch=4),
    ),
)
SHARE_SCENARIO = {
    # every partition assignable (the describe does not say otherwise); "gone" left out of h1's subscription
    "kind": "share",
    "topics": {"clicks": 2, "orders": {"partitions": 4, "id": KAFKA_ID}},
    "members": {
        "h1": {"topics": ["orders"], "rack": "az-c", "assigned": {"orders": [0, 1, 2, 3]}},
        "h2": {"topics": ["clicks", "orders"], "assigned": {"orders": [1, 2]}},
    },
}
DEAD_GROUP = ClassicGroup("old", "range", (), state="Dead")
EMPTY_GROUP = ConsumerGroup("idle", "uniform", (), state="Empty")

GROUPS = (
    RANGE_GROUP,
    STICKY_GROUP,
    COOPERATIVE_GROUP,
    CONSUMER_GROUP,
    STREAMS_GROUP,
    SHARE_GROUP,
    DEAD_GROUP,
    EMPTY_GROUP,
)


@pytest.fixture(scope="module")
def cluster():
    with Coordinator(topics=TOPICS, brokers=BROKERS, groups=GROUPS) as coordinator:
        yield coordinator
        assert coordinator.errors == []
        assert set(coordinator.received) <= READ_ONLY


def capture(cluster, group: str, **options):
    return capture_group(group, bootstrap=cluster.address, timeout=10, **options)


# -- field for field -----------------------------------------------------------------------------------------


def test_classic_range_group_field_for_field(cluster):
    c = capture(cluster, "orders-range")
    assert (c.kind, c.state, c.assignor, c.port) == ("classic", "Stable", "range", "range")
    assert c.scenario == RANGE_SCENARIO
    assert c.assignment == RANGE_ASSIGNMENT
    members = c.details["members"]
    assert members["c1-7f3a"] == {
        "client_id": "billing",
        "client_host": "/10.0.0.1",
        "subscription_version": 3,
        "owned_partitions": {"orders": [0, 1]},
        "generation": 7,
        "user_data": base64.b64encode(b"\x00\xffopaque").decode(),
        "assignment_user_data": None,
    }
    assert members["c2-91bc"]["subscription_version"] == 1 and members["c2-91bc"]["generation"] == -1
    assert members["c3-0d11"]["subscription_version"] == 0
    assert members["c3-0d11"]["assignment_user_data"] == base64.b64encode(b"\x01\x02").decode()


def test_classic_sticky_reads_its_user_data(cluster):
    c = capture(cluster, "orders-sticky")
    assert (c.assignor, c.port) == ("sticky", "kafka4-sticky")
    assert c.scenario == STICKY_SCENARIO
    assert c.assignment == {"s1": {"orders": [0, 1]}, "s2": {"orders": [2, 3]}, "s3": {}}
    assert any("user data" in n for n in c.notes)


def test_classic_cooperative_takes_the_generation_from_its_user_data(cluster):
    c = capture(cluster, "orders-coop")
    assert c.scenario == COOPERATIVE_SCENARIO
    assert c.port == "kafka4-cooperative-sticky"


def test_consumer_group_target_assignment(cluster):
    c = capture(cluster, "orders-848")
    assert (c.kind, c.assignor, c.port) == ("consumer", "uniform", "uniform")
    assert c.scenario == CONSUMER_SCENARIO
    assert c.assignment == CONSUMER_TARGET
    assert c.details["group_epoch"] == 12 and c.details["assignment_epoch"] == 12
    u3 = c.details["members"]["u3"]
    assert u3["subscribed_topic_regex"] == "ord.*" and u3["member_type"] == 0 and u3["assignment"] == {}
    assert c.details["members"]["u1"]["assignment"] == {"orders": [0, 1, 2]}

    # the topic id is Kafka's text, and the scenario reader's own Uuid decoding gives back the bits sent
    def signed(bits: int) -> int:  # Java's long
        return bits - (1 << 64) if bits >= 1 << 63 else bits

    sent = (signed(ORDERS_ID.int >> 64), signed(ORDERS_ID.int & ((1 << 64) - 1)))
    assert uuid_bits(c.scenario["topics"]["orders"]["id"]) == sent


def test_streams_group_tasks_offsets_and_configs(cluster):
    c = capture(cluster, "orders-app")
    assert (c.kind, c.assignor, c.port) == ("streams", "sticky", "streams-sticky")
    assert c.scenario == STREAMS_SCENARIO
    assert c.assignment == STREAMS_TARGET
    assert c.details["members"]["p1-t1"]["target_warmup"] == {"0": [3]}


def test_share_group_field_for_field(cluster):
    c = capture(cluster, "orders-share")
    assert (c.kind, c.assignor, c.port) == ("share", "simple", None)
    assert c.scenario == SHARE_SCENARIO
    assert c.assignment == {"h1": {"orders": [0, 1, 2, 3]}, "h2": {"orders": [1, 2]}}
    assert c.details["members"]["h2"] == {"client_id": "share-consumer", "client_host": "/127.0.0.1", "member_epoch": 4}
    assert any("gone" in n and "left out" in n for n in c.notes)


def test_a_share_groups_members_are_written_in_the_order_described(tmp_path):
    """memberIds() is filled in the group's order and Java's iteration order depends on it: the scenario file keeps
    the describe's order (h2 before h1), not the sorted one."""
    from assignment_oracle.compare.capture.group import (
        GroupDescription,
        TopicMeta,
        capture_from,
    )
    from assignment_oracle.compare.capture.group import ShareMember as Described
    from assignment_oracle.problem.share import ShareProblem

    members = tuple(
        Described(m, "share-consumer", "/127.0.0.1", None, 1, ("orders",), {"orders": (p,)})
        for m, p in (("h2", 0), ("h1", 1))
    )
    c = capture_from(GroupDescription("g", "share", "Stable", "simple", members), {"orders": TopicMeta(2)})
    c.write(str(tmp_path / "g.json"))
    written = json.loads((tmp_path / "g.json").read_text())
    assert list(written["members"]) == ["h2", "h1"]
    assert ShareProblem.from_mapping(written).member_ids == ("h2", "h1")


def test_share_groups_are_judged_as_check_judges_them(cluster, capsys):
    from assignment_oracle.compare.judge import KINDS

    assert "share" in KINDS  # the judge's table has a row for every kind of group (problem.kinds)
    said = run(capsys, "capture", "--bootstrap-server", cluster.address, "--group", "orders-share", "--judge")
    assert said[0] in (0, 1) and said[2] == ""


def test_type_names_the_describe(cluster):
    assert capture(cluster, "orders-range", group_type="classic").scenario == RANGE_SCENARIO
    with pytest.raises(InputError, match="no such group"):
        capture(cluster, "orders-range", group_type="consumer")  # a classic group is not a consumer group


# -- judged in place: check's verdict -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "group, scenario, candidate",
    [
        ("orders-range", RANGE_SCENARIO, RANGE_ASSIGNMENT),
        ("orders-848", CONSUMER_SCENARIO, CONSUMER_TARGET),
        ("orders-app", STREAMS_SCENARIO, STREAMS_TARGET),
        ("orders-share", SHARE_SCENARIO, {"h1": {"orders": [0, 1, 2, 3]}, "h2": {"orders": [1, 2]}}),
    ],
)
def test_judge_is_checks_verdict_on_the_hand_written_files(cluster, tmp_path, capsys, group, scenario, candidate):
    (tmp_path / "hand.json").write_text(json.dumps(scenario))
    (tmp_path / "hand-candidate.json").write_text(json.dumps({"assignment": candidate}))
    check_code, check_out, _ = run(capsys, "check", tmp_path / "hand.json", tmp_path / "hand-candidate.json", "--json")
    code, out, err = run(
        capsys, "capture", "--bootstrap-server", cluster.address, "--group", group, "--judge", "--json"
    )
    assert code == check_code
    verdict = json.loads(check_out)  # check's whole document names its version; the capture's document does
    assert verdict.pop("format_version") == FORMATS["verdict"] and json.loads(out)["verdict"] == verdict
    # the text form holds check's text, unchanged, between the capture's header and its moves
    _, check_text, _ = run(capsys, "check", tmp_path / "hand.json", tmp_path / "hand-candidate.json")
    code, text, _ = run(capsys, "capture", "--bootstrap-server", cluster.address, "--group", group, "--judge")
    assert check_text in text and "\nthe optimum from here: " in text
    if scenario.get("kind") is None:  # a consumer group: what to configure, after the verdict
        assert text.index("\nconfigure ") > text.index("\nthe optimum from here: ")


def test_written_files_are_what_check_reads(cluster, tmp_path, capsys):
    out = tmp_path / "orders.json"
    code, stdout, err = run(
        capsys, "capture", "--bootstrap-server", cluster.address, "--group", "orders-range", "-o", out
    )
    assert (code, stdout) == (0, "") and "orders.assignment.json" in err
    assert json.loads(out.read_text()) == {"format_version": FORMATS["scenario"], **RANGE_SCENARIO}
    candidate = json.loads((tmp_path / "orders.assignment.json").read_text())
    assert candidate["assignment"] == RANGE_ASSIGNMENT and candidate["assignor"] == "range"
    first = out.read_bytes(), (tmp_path / "orders.assignment.json").read_bytes()
    run(capsys, "capture", "--bootstrap-server", cluster.address, "--group", "orders-range", "-o", out)
    assert (out.read_bytes(), (tmp_path / "orders.assignment.json").read_bytes()) == first  # byte-stable
    code, _, _ = run(capsys, "check", out, tmp_path / "orders.assignment.json")
    assert code == 1  # range: c1 holds 3 partitions, c3 one; 2/2/2 exists (a balance gap)
    code, rows, _ = run(capsys, "compare", out, "--assignors", "range,kafka4-sticky", "--json")
    assert code == 0 and {r["assignor"] for r in json.loads(rows)["rows"]} >= {"range", "kafka4-sticky"}


def test_moves_from_here_are_the_optimum_from_the_current_assignment(cluster):
    judged = judge_capture(capture(cluster, "orders-range"))
    # Worked by hand.  Now: c1 (rack az-a; orders, clicks) holds orders-0, orders-1, clicks-0; c2 (orders)
    # orders-2, orders-3; c3 (clicks) clicks-1.  Most balanced is 2/2/2, so c3 takes clicks-0.  Then the
    # rack tier, before stickiness: c1 reads orders-1 (az-b, az-c) across racks, and holds none of it with
    # orders-2 or orders-3 (az-a replicas) instead: c1 keeps orders-0 and takes orders-2 (or -3) from c2,
    # which takes orders-1.  Three partitions move; the busiest member goes from 3 to 2 (-33.3%).
    m = judged.moves
    assert (m.moved, m.total, m.busiest_now, m.busiest_optimum, m.proven) == (3, 6, 3, 2, True)
    assert m.busiest_change_pct == pytest.approx(-100 / 3)
    assert "3 partitions would move (50.0% of 6); busiest member -33.3% (3 -> 2 partitions)" in judged.text()


def test_what_to_configure_for_the_worked_example():
    """docs/operators.md's group (range, eager; 8 partitions over 3 members in 3 zones, range's 4/2/2): from
    its current assignment the sticky family and uniform all reach 3/3/2 moving one partition and tie;
    range and round robin, which ignore what members hold, do not; the tie goes to KIP-848's uniform (no
    stop-the-world rebalance), and the line says so."""
    from capture_coordinator import example

    with example() as served:
        judged = judge_capture(capture_group("billing", bootstrap=served.address, timeout=10))
    r = judged.recommendation
    assert (r.choice.choose, r.moved, r.total, r.busiest_now, r.busiest) == ("uniform", 1, 8, 4, 3)
    assert {"kafka4-cooperative-sticky", "cooperative-sticky"} <= set(r.choice.tied)
    assert "range" not in r.choice.tied and "roundrobin" not in r.choice.tied
    text = judged.text()
    assert "configure uniform: Java consumer, Kafka 4.0+ brokers: group.protocol=consumer" in text
    assert "1 partition would move (12.5% of 8); busiest member -25.0% (4 -> 3 partitions)" in text
    assert "chosen for fewer stop-the-world rebalances" in text
    assert judged.to_mapping()["configure"]["setting"].startswith("group.protocol=consumer")


# -- failures: one line, exit 2, bounded ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_address(capsys):
    start = time.monotonic()
    line = one_line_error(
        *run(
            capsys,
            "capture",
            "--bootstrap-server",
            f"127.0.0.1:{free_port()}",
            "--group",
            "g",
            "--judge",
            "--timeout",
            "2",
        )
    )
    # a hang guard (15 times --timeout), not a speed target: the timings are benchmarks' business
    assert "cannot reach the cluster" in line and time.monotonic() - start < 30


def test_silent_server_is_bounded(capsys):
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts connections, never answers
        port = silent.getsockname()[1]
        start = time.monotonic()
        line = one_line_error(
            *run(
                capsys,
                "capture",
                "--bootstrap-server",
                f"127.0.0.1:{port}",
                "--group",
                "g",
                "--judge",
                "--timeout",
                "2",
            )
        )
    # a hang guard (15 times --timeout), not a speed target: the timings are benchmarks' business
    assert "cannot reach the cluster" in line and time.monotonic() - start < 30


@pytest.mark.parametrize("address", ["broker", "broker:port", "broker:70000", ":9092", "a b:9092"])
def test_malformed_address(capsys, address):
    line = one_line_error(*run(capsys, "capture", "--bootstrap-server", address, "--group", "g", "--judge"))
    assert "is not HOST:PORT" in line


@pytest.mark.parametrize(
    "group, said",
    [
        ("nobody", "no such group"),
        ("old", "the group is dead"),
        ("idle", "has no members (state Empty)"),
    ],
)
def test_unknown_dead_empty_groups(cluster, capsys, group, said):
    line = one_line_error(*run(capsys, "capture", "--bootstrap-server", cluster.address, "--group", group, "--judge"))
    assert said in line


SECRET = "pa55-W0rd-that-must-never-show"


def properties(path, mechanism: str, password: str) -> str:
    path.write_text(
        "# the operator's client.properties\n"
        "security.protocol=SASL_PLAINTEXT\n"
        f"sasl.mechanism={mechanism}\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
        f'    username="alice" password="{password}";\n'
        "key.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n"
    )
    return str(path)


@pytest.mark.parametrize(
    "mechanism, password, code, said",
    [
        ("PLAIN", SECRET, 1, None),  # authenticated: range's balance gap, exit 1 as check
        ("PLAIN", "wrong-" + SECRET, 2, "refused the SASL credentials"),
        ("SCRAM-SHA-512", SECRET, 2, "do not enable this SASL mechanism"),
    ],
)
def test_sasl_and_secrets(tmp_path, capsys, mechanism, password, code, said):
    config = properties(tmp_path / "client.properties", mechanism, password)
    out = tmp_path / "orders.json"
    with Coordinator(
        topics=TOPICS,
        brokers=BROKERS,
        groups=(RANGE_GROUP,),
        sasl={"mechanisms": ["PLAIN"], "users": {"alice": SECRET}},
    ) as c:
        got, stdout, err = run(
            capsys,
            "capture",
            "--bootstrap-server",
            c.address,
            "--group",
            "orders-range",
            "--command-config",
            config,
            "-o",
            out,
            "--judge",
            "--timeout",
            "8",
        )
        assert c.errors == []
    assert got == code  # a refusal is said as one (below), not retried into a timeout
    if said is not None:
        assert said in one_line_error(got, stdout, err)
        assert not out.exists()
    written = "".join(p.read_text(errors="replace") for p in tmp_path.glob("*.json"))
    for text in (stdout, err, written):
        assert SECRET not in text and password not in text
    assert SECRET not in repr(read_properties(config))


def test_client_properties_refuse_what_they_cannot_honour(tmp_path):
    path = tmp_path / "c.properties"
    path.write_text("security.protocol=SSL\nssl.truststore.type=JKS\nssl.truststore.password=" + SECRET + "\n")
    with pytest.raises(InputError, match="ssl.truststore.type: capture reads PEM stores only") as err:
        read_properties(str(path))
    assert SECRET not in str(err.value)
    path.write_text("security.protocol=SASL_SSL\nsasl.login.callback.handler.class=x\n")
    with pytest.raises(InputError, match="sasl.login.callback.handler.class: is not supported"):
        read_properties(str(path))


def test_properties_format_is_javas():
    # java.util.Properties.load: separators, comments, continuations, escapes (its javadoc's examples)
    text = (
        "# comment\n! also a comment\nTruth = Beauty\n  Truth:Beauty\nTruth                    :Beauty\n"
        "fruits                           apple, banana, pear, \\\n"
        "                                  cantaloupe, watermelon, \\\n                                  kiwi, mango\n"
        "cheeses\nkey\\ with\\ spaces=v\\u0041\\t!\n"
    )
    props = parse_properties(text)
    assert props["Truth"] == "Beauty"
    assert props["fruits"] == "apple, banana, pear, cantaloupe, watermelon, kiwi, mango"
    assert props["cheeses"] == ""
    assert props["key with spaces"] == "vA\t!"


def test_sticky_user_data_as_kafka_reads_it():
    assert sticky_previous_assignment(sticky_user_data({"t": [3, 1], "u": [0]}, 12)) == ({"t": [3, 1], "u": [0]}, 12)
    assert sticky_previous_assignment(sticky_user_data({"t": [2]}, None)) == ({"t": [2]}, None)  # V0
    assert sticky_previous_assignment(b"\x07") is None and sticky_previous_assignment(None) is None


# -- every group the strategies draw: captured as defined ----------------------------------------------------


@st.composite
def classic_groups(draw):
    names = draw(st.lists(st.sampled_from(["orders", "clicks"]), min_size=1, max_size=2, unique=True))
    counts = {"orders": 4, "clicks": 2}
    members = []
    for i in range(draw(st.integers(1, 4))):
        topics = tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True)))
        owned = {t: sorted(draw(st.sets(st.integers(0, counts[t] - 1), max_size=2))) for t in topics}
        owned = {t: ps for t, ps in owned.items() if ps}
        assigned = {t: sorted(draw(st.sets(st.integers(0, counts[t] - 1), max_size=2))) for t in topics}
        members.append(
            ClassicMember(
                f"m{i}-{draw(st.text('abc', min_size=1, max_size=3))}",
                topics,
                {t: ps for t, ps in assigned.items() if ps},
                owned=owned,
                generation=draw(st.integers(-1, 20)),
                rack=draw(st.sampled_from([None, "az-a", "az-b"])),
                user_data=draw(st.none() | st.binary(max_size=6)),
                instance_id=draw(st.none() | st.just(f"static-{i}")),
                version=draw(st.integers(0, 3)),
            )
        )
    return ClassicGroup("drawn", draw(st.sampled_from(["range", "roundrobin"])), tuple(members))


def expected_classic(group: ClassicGroup) -> dict:
    """The scenario of a range or round robin group, by the rules: owned from v1, generation from v2 (when
    >= 0), rack from v3."""
    members = {}
    for m in group.members:
        entry = {"topics": sorted(m.topics)}
        if m.version >= 1 and m.owned:
            entry["owned"] = m.owned
        if m.version >= 2 and m.generation >= 0:
            entry["generation"] = m.generation
        if m.version >= 3 and m.rack:
            entry["rack"] = m.rack
        if m.instance_id is not None:
            entry["instance_id"] = m.instance_id
        members[m.member_id] = entry
    names = {t for e in members.values() for t in e["topics"]}
    topics = {"orders": ORDERS, "clicks": CLICKS}
    return {"topics": {t: topics[t] for t in sorted(names)}, "members": members}


@settings(max_examples=25, deadline=None)
@given(group=classic_groups())
def test_any_classic_group_is_captured_as_defined(cluster, group):
    if len({m.member_id for m in group.members}) < len(group.members):
        return  # member ids are unique in a group
    cluster.groups["drawn"] = group
    c = capture(cluster, "drawn", group_type="classic")
    assert c.scenario == expected_classic(group)
    assert c.assignment == {m.member_id: m.assignment for m in group.members}
    for m in group.members:
        recorded = c.details["members"][m.member_id]
        assert recorded["user_data"] == (None if m.user_data is None else base64.b64encode(m.user_data).decode())
        assert recorded["subscription_version"] == m.version


# -- a real cluster, when one is given ----------------------------------------------------------------------


@pytest.mark.skipif(
    not os.environ.get("ASSIGNMENT_ORACLE_BOOTSTRAP"),
    reason="opt-in: ASSIGNMENT_ORACLE_BOOTSTRAP=HOST:PORT and ASSIGNMENT_ORACLE_GROUP=G (a real cluster)",
)
def test_a_real_cluster(tmp_path, capsys):
    bootstrap = os.environ["ASSIGNMENT_ORACLE_BOOTSTRAP"]
    group = os.environ.get("ASSIGNMENT_ORACLE_GROUP", "")
    config = os.environ.get("ASSIGNMENT_ORACLE_COMMAND_CONFIG")
    extra = ["--command-config", config] if config else []
    out = tmp_path / "real.json"
    code, stdout, err = run(capsys, "capture", "--bootstrap-server", bootstrap, "--group", group, "-o", out, *extra)
    assert code == 0, err
    check_code, check_out, _ = run(capsys, "check", out, tmp_path / "real.assignment.json", "--json")
    code, judged, _ = run(
        capsys, "capture", "--bootstrap-server", bootstrap, "--group", group, "--judge", "--json", *extra
    )
    assert code == check_code and json.loads(judged)["verdict"]["valid"] == json.loads(check_out)["valid"]
    line = one_line_error(
        *run(
            capsys,
            "capture",
            "--bootstrap-server",
            bootstrap,
            "--group",
            "assignment-oracle-no-such-group-x",
            "--judge",
            *extra,
        )
    )
    assert "no such group" in line or "dead" in line


def test_without_the_extra_capture_names_it_in_one_line(capsys, monkeypatch):
    """The core install has no kafka-python: a live capture is one line naming the 'capture' extra, exit 2
    (the offline path needs no extra)."""
    from assignment_oracle.problem import extras

    monkeypatch.setattr(extras, "find_spec", lambda name: None if name == "kafka" else object())
    line = one_line_error(*run(capsys, "capture", "--bootstrap-server", "127.0.0.1:9092", "--group", "g", "--judge"))
    assert "needs the 'capture' extra" in line and install_hint("capture") in line
