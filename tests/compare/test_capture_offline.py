"""``capture`` offline: the text Kafka's tools print, read back as the group it describes.

The recorded outputs in ``capture_outputs/`` are written exactly as apache/kafka d79bd50's tools print
them (``kafka-consumer-groups.sh ... > FILE 2>&1``): ``billing-classic.txt`` is ``--describe --group
billing --state --verbose`` then ``--members --verbose`` of a classic group (ConsumerGroupCommand.java
``printStates`` lines 512-535, ``printMembers`` 397-454, ``printMembersHelper`` 456-490,
``getAssignmentString`` 492-508: every column ``%-Ns`` padded to its widest value, a client id with a
space); ``pos-consumer.txt`` the same for a KIP-848 group in migration (a GROUP-INSTANCE-ID column, the
UPGRADED column, the rebalancing warning the tool writes to stderr); ``topics.txt`` is ``kafka-topics.sh
--describe`` (TopicCommand.java ``TopicDescription.printDescription`` 283-295,
``PartitionDescription.printDescription`` 338-373, ELR enabled); ``brokers.txt`` the first lines of
``kafka-broker-api-versions.sh`` (BrokerApiVersionsCommand.java line 92, ``Node.toString()``).  The
property test prints drawn groups with the same ``printf`` formats and reads them back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.cli import main
from assignment_oracle.compare.capture import capture_group
from assignment_oracle.compare.capture.offline import capture_offline, parse_members, parse_topics
from assignment_oracle.problem.errors import InputError

OUTPUTS = Path(__file__).parent / "capture_outputs"
BILLING = OUTPUTS / "billing-classic.txt"
POS = OUTPUTS / "pos-consumer.txt"
TOPICS = OUTPUTS / "topics.txt"
BROKERS = OUTPUTS / "brokers.txt"

A, B, C = "eu-west-1a", "eu-west-1b", "eu-west-1c"  # brokers 1, 2, 3
CLICKS = {"partitions": 2, "racks": [[A, B], [B, C]], "id": "1ZsPuD3TTmm0CYWSWSmD0g"}
ORDERS = {"partitions": 6, "racks": [[A, B], [B, C], [C, A], [A, C], [B, A], [C, B]], "id": "UXyU9i5ARn6W00ON2taeWA"}
PAYMENTS = {
    "partitions": 6,
    "racks": [[A, B, C], [B, C, A], [C, A, B], [A, C, B], [B, A, C], [C, B, A]],
    "id": "j4Xr1Yq9Sxm5T0bH2cVz7Q",
}
B1 = "billing-1-5f0c2a8e-93d4-4c1b-a3b6-0f4d6c1e2a11"
B2 = "billing-2-c41e7d90-1a52-4b7e-9f0e-7d2b8a6c3f04"
B3 = "billing-3-0b9d4e55-7c3a-49f2-8e61-2a4f9c7d1b38"


def offline(group: str, members: Path, **options):
    return capture_group(
        group, group_description=str(members), topic_description=str(TOPICS), brokers=str(BROKERS), **options
    )


def test_classic_group_from_the_tools_text():
    c = offline("billing", BILLING)
    assert (c.kind, c.state, c.assignor, c.port) == ("classic", "Stable", "range", "range")
    both = ["clicks", "orders"]
    assert c.scenario == {
        "topics": {"clicks": CLICKS, "orders": ORDERS},
        "members": {B1: {"topics": both}, B2: {"topics": both}, B3: {"topics": both}},
    }
    assert c.assignment == {
        B1: {"clicks": [0], "orders": [0, 1, 2]},
        B2: {"clicks": [1], "orders": [3]},
        B3: {"orders": [4, 5]},
    }
    assert c.details["members"][B1]["client_id"] == "billing 1"  # a value with a space, read by column
    assert c.details["members"][B2]["client_host"] == "/10.0.1.18"
    assert any("subscriptions are not in the tool's text" in n for n in c.notes)


def test_held_subscriptions():
    c = offline("billing", BILLING, subscriptions="held")
    assert c.scenario["members"][B3] == {"topics": ["orders"]}
    assert c.scenario["members"][B1] == {"topics": ["clicks", "orders"]}


def test_consumer_group_in_migration_from_the_tools_text():
    c = offline("pos", POS)
    assert (c.kind, c.state, c.assignor, c.port) == ("consumer", "Reconciling", "uniform", "uniform")
    p = ["payments"]
    assert c.scenario == {
        "topics": {"payments": PAYMENTS},
        "members": {
            "Qx3vY9tDRr2m0fN1kL8sWg": {
                "topics": p,
                "owned": {"payments": [0, 1, 2]},
                "generation": 14,
                "instance_id": "pos-1",
            },
            "b7Ue2pQnT0yQv4Hc9dXz1A": {
                "topics": p,
                "owned": {"payments": [3, 4]},
                "generation": 14,
                "instance_id": "pos-2",
            },
            "pos-3-8e2a7c1d-6b4f-4a09-b1d3-5c7e9f2a4b60": {
                "topics": p,
                "owned": {"payments": [5]},
                "generation": 13,
                "instance_id": "pos-3",
            },
        },
    }
    assert c.assignment == {
        "Qx3vY9tDRr2m0fN1kL8sWg": {"payments": [0, 1]},
        "b7Ue2pQnT0yQv4Hc9dXz1A": {"payments": [2, 3, 4]},
        "pos-3-8e2a7c1d-6b4f-4a09-b1d3-5c7e9f2a4b60": {"payments": [5]},
    }
    assert c.details["members"]["pos-3-8e2a7c1d-6b4f-4a09-b1d3-5c7e9f2a4b60"]["member_type"] == 0  # UPGRADED false
    assert c.details["group_epoch"] == 14 and c.details["assignment_epoch"] == 14
    assert any("rebalancing" in n for n in c.notes)


def test_without_brokers_there_are_no_racks():
    c = capture_group("billing", group_description=str(BILLING), topic_description=str(TOPICS))
    assert c.scenario["topics"]["orders"] == {"partitions": 6, "id": "UXyU9i5ARn6W00ON2taeWA"}
    assert any("no brokers' racks" in n for n in c.notes)


def test_the_command_line_writes_and_judges(tmp_path, capsys):
    out = tmp_path / "billing.json"
    code = main(
        [
            "capture",
            "--group",
            "billing",
            "--group-description",
            str(BILLING),
            "--topic-description",
            str(TOPICS),
            "--brokers",
            str(BROKERS),
            "-o",
            str(out),
            "--judge",
        ]
    )
    text, err = capsys.readouterr()
    assert code == 1  # range: 4/2/2 where 3/3/2 exists
    assert "balance: [4, 2, 2] worse than optimum [3, 3, 2]" in text
    assert code == main(["check", str(out), str(tmp_path / "billing.assignment.json")])
    check_text, _ = capsys.readouterr()
    assert check_text in text
    assert json.loads(out.read_text())["members"][B1] == {"topics": ["clicks", "orders"]}


@pytest.mark.parametrize(
    "text, said",
    [
        ("\nConsumer group 'billing' does not exist.\n", "does not exist"),
        ("\nConsumer group 'billing' has no active members.\n", "has no active members"),
        ("Topic: orders\tPartitionCount: 6\n", "is not the output of kafka-consumer-groups.sh"),
        (
            "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n"
            "billing         c1              /10.0.0.1       c1              1               \n",
            "run kafka-consumer-groups.sh with --verbose",
        ),
    ],
)
def test_texts_that_do_not_describe_the_group(tmp_path, text, said):
    path = tmp_path / "members.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=said):
        offline("billing", path)


def test_another_group_in_the_text_is_not_this_one():
    with pytest.raises(InputError, match="has no member of group 'orders'"):
        offline("orders", BILLING)


def test_a_topic_missing_from_the_topics_text(tmp_path):
    topics = tmp_path / "topics.txt"
    topics.write_text(TOPICS.read_text().split("Topic: orders")[0])  # clicks only
    with pytest.raises(InputError, match="has no topic 'orders', which group 'billing' holds"):
        capture_group("billing", group_description=str(BILLING), topic_description=str(topics))


def test_offline_and_live_are_exclusive(capsys):
    code = main(
        ["capture", "--group", "g", "--bootstrap-server", "b:9092", "--group-description", str(BILLING), "--judge"]
    )
    _, err = capsys.readouterr()
    assert code == 2 and "not both" in err and len(err.splitlines()) == 1


# -- any group the tool prints is read back ------------------------------------------------------------------


def assignment_string(parts: dict[str, list[int]]) -> str:
    """ConsumerGroupCommand.getAssignmentString: per topic ``topic:p,p`` (sorted), entries sorted, ``;``."""
    return ";".join(sorted(f"{t}:{','.join(map(str, sorted(ps)))}" for t, ps in parts.items() if ps)) or "-"


def printed(group: str, members: list[dict]) -> str:
    """printMembers/printMembersHelper with --verbose, Java's %-Ns as Python's (left-justified, padded)."""
    g = max([15, len(group)])
    c = max([15] + [len(m["id"]) for m in members])
    i = max([17] + [len(m["instance"]) for m in members])
    h = max([15] + [len(m["host"]) for m in members])
    cl = max([15] + [len(m["client"]) for m in members])
    cur = [assignment_string(m["current"]) for m in members]
    tgt = [assignment_string(m["target"]) for m in members]
    ca, ta = max([20] + [len(x) for x in cur]), max([20] + [len(x) for x in tgt])
    with_instance = any(m["instance"] for m in members)
    head = f"%-{g}s %-{c}s %-{i}s %-{h}s %-{cl}s %-15s " if with_instance else f"%-{g}s %-{c}s %-{h}s %-{cl}s %-15s "
    tail = f"%-15s %-{ca}s %-15s %-{ta}s"
    labels = ("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
    out = "\n" + head % (labels if with_instance else labels[:2] + labels[3:])
    out += tail % ("CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT") + "\n"
    for m, cu, tg in zip(members, cur, tgt):
        values = (group, m["id"], m["instance"], m["host"], m["client"], sum(map(len, m["current"].values())))
        out += head % (values if with_instance else values[:2] + values[3:])
        out += tail % (m["epoch"], cu, m["epoch"], tg) + "\n"
    return out


names = st.text("abcdefghijklmnopqrstuvwxyz0123456789-._", min_size=1, max_size=30)
partitions = st.dictionaries(st.sampled_from(["orders", "clicks"]), st.sets(st.integers(0, 3), max_size=4), max_size=2)


@st.composite
def members_text(draw):
    epochs = draw(st.booleans())  # a KIP-848 group prints epochs; a classic group '-'
    members = []
    for k in range(draw(st.integers(1, 5))):
        members.append(
            {
                "id": f"{draw(names)}-{k}",
                "instance": draw(st.sampled_from(["", f"static-{k}"])),
                "host": "/" + draw(st.ip_addresses(v=4)).exploded,
                "client": draw(st.text("abc xyz-", min_size=1, max_size=25)).strip() or "c",
                "current": {t: sorted(ps) for t, ps in draw(partitions).items()},
                "target": {t: sorted(ps) for t, ps in draw(partitions).items()} if epochs else {},
                "epoch": str(draw(st.integers(0, 99))) if epochs else "-",
            }
        )
    return members


@settings(max_examples=60)
@given(members=members_text(), group=names)
def test_what_the_tool_prints_is_read_back(members, group):
    description, _ = parse_members(printed(group, members), group)
    assert len(description.members) == len(members)
    for m, read in zip(members, description.members):
        assert read.member_id == m["id"] and read.client_host == m["host"] and read.client_id == m["client"]
        assert read.instance_id == (m["instance"] or None)
        assert {t: list(ps) for t, ps in read.assignment.items()} == {t: ps for t, ps in m["current"].items() if ps}
        if m["epoch"] != "-":
            assert read.epoch == int(m["epoch"])
            assert {t: list(ps) for t, ps in read.target.items()} == {t: ps for t, ps in m["target"].items() if ps}
    assert description.kind == ("consumer" if members[0]["epoch"] != "-" else "classic")


def test_topics_text_is_read_back():
    topics = parse_topics(TOPICS.read_text())
    assert {n: (t.partitions, t.topic_id) for n, t in topics.items()} == {
        "clicks": (2, "1ZsPuD3TTmm0CYWSWSmD0g"),
        "orders": (6, "UXyU9i5ARn6W00ON2taeWA"),
        "payments": (6, "j4Xr1Yq9Sxm5T0bH2cVz7Q"),
    }
    assert topics["orders"].replicas == ((1, 2), (2, 3), (3, 1), (1, 3), (2, 1), (3, 2))


def test_offline_needs_both_texts():
    with pytest.raises(InputError, match="needs both"):
        capture_group("billing", group_description=str(BILLING))
    with pytest.raises(InputError, match="kafka-topics.sh --describe"):
        capture_offline("billing", BILLING.read_text(), "nothing here\n")
