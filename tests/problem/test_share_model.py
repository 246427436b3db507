"""The share group model (KIP-932): the JSON scenario and assignment round-trip, bad input is one line naming
the field, and what makes an assignment valid; holders, loads and coverage measured on hand-checked cases."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.problem.scenario_json import dumps
from assignment_oracle.problem.share import (
    ShareAssignment,
    ShareProblem,
    holders,
    loads,
    uncovered,
    violations,
)

EXAMPLE = {
    "kind": "share",
    "topics": {"orders": {"partitions": 6, "assignable": [0, 1, 2, 3]}, "clicks": 2},
    "members": {
        "m2": {"topics": ["clicks", "orders"]},
        "m1": {"topics": ["orders"], "rack": "r1", "assigned": {"orders": [1, 0]}},
    },
}


def problem(**changes) -> ShareProblem:
    return ShareProblem.from_mapping({**EXAMPLE, **changes})


def test_the_example_reads_as_written():
    p = problem()
    assert list(p.topics.items()) == [("orders", 6), ("clicks", 2)]  # the scenario's order
    assert p.member_ids == ("m2", "m1")  # the group's order as presented, not sorted
    assert p.member["m1"].assigned == (("orders", 0), ("orders", 1))
    assert p.member["m1"].rack == "r1" and p.member["m2"].rack is None
    assert p.member["m2"].topics == ("clicks", "orders")
    assert p.partitions[:2] == (("orders", 0), ("orders", 1)) and p.partitions[6:] == (("clicks", 0), ("clicks", 1))
    assert p.partition_index[("clicks", 1)] == 7 and p.index_of("clicks", 1) == 7
    assert p.assignable_partitions("orders") == (0, 1, 2, 3) and p.assignable_partitions("clicks") == (0, 1)
    assert [p.is_assignable("orders", i) for i in range(7)] == [True] * 4 + [False] * 3
    assert p.target_mask.tolist() == [True] * 4 + [False] * 2 + [True] * 2
    assert p.subscribers("orders") == ("m2", "m1") and p.subscribers("clicks") == ("m2",)
    assert not p.is_homogeneous


def test_round_trip():
    p = problem()
    assert ShareProblem.from_mapping(p.to_mapping()) == p
    assert p.to_mapping() == {
        "kind": "share",
        "topics": {"orders": {"partitions": 6, "assignable": [0, 1, 2, 3]}, "clicks": 2},
        "members": {
            "m2": {"topics": ["clicks", "orders"]},
            "m1": {"topics": ["orders"], "rack": "r1", "assigned": {"orders": [0, 1]}},
        },
    }


@st.composite
def share_scenarios(draw) -> dict:
    """Small share group scenarios using every field (ids included), for the round trip."""
    names = draw(st.lists(st.sampled_from(["t", "u", "v", "w"]), min_size=1, max_size=4, unique=True))
    topics: dict = {}
    for i, name in enumerate(names):
        count = draw(st.integers(1, 5))
        spec: dict = {"partitions": count}
        if draw(st.booleans()):
            spec["assignable"] = draw(st.lists(st.integers(0, count - 1), unique=True))
        if draw(st.booleans()):
            spec["id"] = f"AAAAAAAAAAAAAAAAAAAA{'BCDEFGHI'[i]}A"
        topics[name] = spec if len(spec) > 1 or draw(st.booleans()) else count
    members: dict = {}
    for m in draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=5, unique=True)):
        subscribed = draw(st.lists(st.sampled_from(names), unique=True))
        member: dict = {"topics": subscribed}
        if draw(st.booleans()):
            member["rack"] = draw(st.sampled_from(["r1", "r2"]))
        held = {}
        for t in draw(st.lists(st.sampled_from(names), unique=True)):
            count = topics[t] if isinstance(topics[t], int) else topics[t]["partitions"]
            held[t] = draw(st.lists(st.integers(0, count - 1), unique=True))
        if held:
            member["assigned"] = held
        members[m] = member
    return {"kind": "share", "topics": topics, "members": members}


@settings(max_examples=200)
@given(share_scenarios())
def test_round_trip_of_any_scenario(scenario):
    p = ShareProblem.from_mapping(scenario)
    again = ShareProblem.from_mapping(p.to_mapping())
    assert again == p and again.to_mapping() == p.to_mapping()
    assert p.member_ids == tuple(scenario["members"])
    assert len(p.partitions) == p.partition_count == len(p.partition_index)
    # the mask is the per-partition answer of is_assignable, in the dense order
    assert p.assignable_mask.tolist() == [p.is_assignable(t, i) for t, i in p.partitions]


@settings(max_examples=200)
@given(share_scenarios())
def test_the_written_scenario_keeps_the_groups_order(scenario):
    """Written as the tool writes files (canonical bytes), read back: the same group, members and topics in the
    order given (Kafka fills memberIds() in the group's order; Java's iteration order depends on it)."""
    p = ShareProblem.from_mapping(scenario)
    text = dumps(p.to_mapping())
    again = ShareProblem.from_mapping(json.loads(text))
    assert again == p
    assert again.member_ids == tuple(scenario["members"]) and tuple(again.topics) == tuple(scenario["topics"])
    assert dumps(again.to_mapping()) == text  # byte for byte


def test_the_written_scenario_lists_members_as_the_group_does():
    written = json.loads(dumps(problem().to_mapping()))  # json keeps the file's order
    assert list(written) == ["kind", "members", "topics"]  # the document's own keys sorted (canonical)
    assert list(written["members"]) == ["m2", "m1"] and list(written["topics"]) == ["orders", "clicks"]
    assert list(written["members"]["m1"]) == ["assigned", "rack", "topics"]  # a member's keys sorted
    assert written["members"]["m2"]["topics"] == ["clicks", "orders"]  # its subscription as given


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"kind": "streams"}, "kind", 'must be "share", got string "streams"'),
        ({"topics": []}, "topics", "must be a JSON object, got an array"),
        ({"topics": {"t": 0}}, "topics.t", "must be positive, got 0"),
        ({"topics": {"t": -2}}, "topics.t", "must be positive, got -2"),
        ({"topics": {"t": True}}, "topics.t", "must be an integer, got boolean true"),
        ({"topics": {"t": 2**31}}, "topics.t", "must fit Kafka's int32 partition count, got 2147483648"),
        ({"topics": {"t": {"partitions": 2.0}}}, "topics.t.partitions", "must be an integer, got number 2.0"),
        ({"topics": {"t": {"count": 2}}}, "topics.t.count", "unknown key (allowed: assignable, id, partitions)"),
        ({"topics": {"t": {}}}, "topics.t", 'missing key "partitions"'),
        (
            {"topics": {"t": {"partitions": 2, "assignable": [0, 2]}}},
            "topics.t.assignable[1]",
            'partition 2 is out of range ("t" has 2 partitions)',
        ),
        (
            {"topics": {"t": {"partitions": 2, "assignable": [1, 1]}}},
            "topics.t.assignable[1]",
            "partition 1 is listed twice",
        ),
        (
            {"topics": {"t": {"partitions": 2, "assignable": [-1]}}},
            "topics.t.assignable[0]",
            "must be non-negative, got -1",
        ),
        (
            {"topics": {"t": {"partitions": 2, "assignable": [False]}}},
            "topics.t.assignable[0]",
            "must be an integer, got boolean false",
        ),
        (
            {"topics": {"t": {"partitions": 2, "assignable": 1}}},
            "topics.t.assignable",
            "must be an array of partition numbers, got number 1",
        ),
        ({"topics": {"t": {"partitions": 2, "id": "x"}}}, "topics.t.id", "must be a Kafka topic id"),
        (
            {
                "topics": {
                    "t": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAQ"},
                    "u": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAQ"},
                }
            },
            "topics.u.id",
            'is already the id of topic "t" (ids are unique)',
        ),
        ({"members": {"m": {}}}, "members.m", 'missing key "topics"'),
        ({"members": {"m": {"topics": "orders"}}}, "members.m.topics", "must be an array of topic names"),
        ({"members": {"m": {"topics": ["nope"]}}}, "members.m.topics[0]", 'unknown topic "nope" (not in topics)'),
        ({"members": {"m": {"topics": ["orders", "orders"]}}}, "members.m.topics[1]", 'topic "orders" is listed twice'),
        ({"members": {"m": {"topics": [1]}}}, "members.m.topics[0]", "must be a string, got number 1"),
        ({"members": {"m": {"topics": [], "rack": 3}}}, "members.m.rack", "must be a string, got number 3"),
        ({"members": {"m": {"topics": [], "owned": {}}}}, "members.m.owned", "unknown key"),
        (
            {"members": {"m": {"topics": [], "assigned": {"nope": [0]}}}},
            "members.m.assigned.nope",
            'unknown topic "nope" (not in topics)',
        ),
        (
            {"members": {"m": {"topics": [], "assigned": {"clicks": [0, 2]}}}},
            "members.m.assigned.clicks[1]",
            'partition 2 is out of range ("clicks" has 2 partitions)',
        ),
        (
            {"members": {"m": {"topics": [], "assigned": {"clicks": [1, 1]}}}},
            "members.m.assigned.clicks[1]",
            "partition 1 is listed twice",
        ),
        (
            {"members": {"m": {"topics": [], "assigned": {"clicks": [True]}}}},
            "members.m.assigned.clicks[0]",
            "must be an integer, got boolean true",
        ),
        (
            {"members": {"m": {"topics": [], "assigned": [0]}}},
            "members.m.assigned",
            "must be a JSON object, got an array",
        ),
        ({"members": {"": {"topics": []}}}, 'members.""', "must not be empty"),
        ({"extra": 1}, "extra", "unknown key (allowed: joining, kind, members, topics)"),
    ],
)
def test_bad_input_is_one_line_naming_the_field(change, field, message):
    with pytest.raises(InputError) as caught:
        problem(**change)
    assert caught.value.field == field
    assert message in caught.value.problem
    assert "\n" not in str(caught.value)


def test_missing_required_keys():
    for key in ("kind", "topics", "members"):
        data = {k: v for k, v in EXAMPLE.items() if k != key}
        with pytest.raises(InputError) as caught:
            ShareProblem.from_mapping(data)
        assert caught.value.field == key


def test_duplicate_keys_are_refused_as_by_the_other_loaders():
    text = '{"kind": "share", "topics": {"t": 1, "t": 2}, "members": {}}'
    with pytest.raises(InputError, match='duplicate JSON key "t"'):
        load_scenario(text)


def test_more_partitions_than_the_limit_is_refused_before_any_is_built():
    huge = {"kind": "share", "topics": {"t": 2**31 - 1, "u": 2**31 - 1}, "members": {}}
    with pytest.raises(InputError, match="more than the limit of 100,000,000"):
        ShareProblem.from_mapping(huge)
    with pytest.raises(InputError, match="more than the limit of 3"):
        load_scenario({"kind": "share", "topics": {"t": 4}, "members": {}}, max_partitions=3)


def test_load_scenario_and_load_assignment_recognise_the_kind():
    p = load_scenario(EXAMPLE)
    assert isinstance(p, ShareProblem) and p == problem()
    bare = load_assignment({"m1": {"orders": [0, 1]}}, p)
    wrapped = load_assignment({"kind": "share", "assignment": {"m1": {"orders": [1, 0]}}})
    assert isinstance(bare, ShareAssignment) and bare == wrapped
    assert bare.of("m1") == (("orders", 0), ("orders", 1)) and bare.of("m2") == ()


def test_assignment_round_trip_and_repeats_kept():
    a = ShareAssignment.from_mapping({"m2": {"orders": [3, 1, 3]}, "m1": {"clicks": [0], "orders": []}})
    assert list(a.members) == ["m1", "m2"]
    assert a.members["m2"] == (("orders", 1), ("orders", 3), ("orders", 3))
    assert a.to_mapping() == {"m1": {"clicks": [0]}, "m2": {"orders": [1, 3, 3]}}
    assert ShareAssignment.from_mapping(a.to_mapping()) == a
    # a member named "assignment" in the bare form is a member, not the wrapper
    odd = ShareAssignment.from_mapping({"assignment": {"orders": [0]}})
    assert odd.of("assignment") == (("orders", 0),)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"m1": []}, "m1"),
        ({"m1": {"orders": 1}}, "m1.orders"),
        ({"m1": {"orders": [-1]}}, "m1.orders[0]"),
        ({"m1": {"orders": [2**31]}}, "m1.orders[0]"),
        ({"m1": {"orders": ["0"]}}, "m1.orders[0]"),
        ({"assignment": {"m1": {"orders": [True]}}}, "assignment.m1.orders[0]"),
    ],
)
def test_bad_assignment_names_the_field(data, field):
    with pytest.raises(InputError) as caught:
        ShareAssignment.from_mapping(data)
    assert caught.value.field == field


def test_a_valid_assignment_has_no_violation_and_is_measured():
    p = problem()
    a = ShareAssignment.from_mapping({"m1": {"orders": [0, 1]}, "m2": {"orders": [1, 2], "clicks": [1]}})
    assert violations(p, a) == ()
    assert holders(p, a).tolist() == [1, 2, 1, 0, 0, 0, 0, 1]
    assert loads(p, a).tolist() == [3, 2]  # m2, m1: the group's order
    assert uncovered(p, a) == (("orders", 3), ("clicks", 0))


def test_each_violation_kind():
    p = problem()
    a = ShareAssignment.from_mapping(
        {
            "m1": {"orders": [0, 0, 4, 9], "clicks": [0], "gone": [1]},
            "ghost": {"orders": [0]},
            "idle": {},
        }
    )
    found = violations(p, a)
    assert [(v.kind, v.member_id, v.partitions) for v in found] == [
        ("unknown-member", "ghost", (("orders", 0),)),
        ("unknown-member", "idle", ()),  # invented, even holding nothing (problem.invented)
        ("unknown-topic", "m1", (("gone", 1),)),
        ("no-such-partition", "m1", (("orders", 9),)),
        ("not-subscribed", "m1", (("clicks", 0),)),
        ("not-assignable", "m1", (("orders", 4),)),
        ("held-twice", "m1", (("orders", 0),)),
    ]
    assert str(found[4]) == "not-subscribed (member m1): clicks-0: the member does not subscribe to the topic"
    assert found[6].to_mapping() == {
        "kind": "held-twice",
        "member": "m1",
        "partitions": [["orders", 0]],
        "detail": "held more than once by the member",
    }
    # invalid holdings count for nobody; the valid orders-0 counts once
    assert holders(p, a).tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert loads(p, a).tolist() == [0, 1]


def test_homogeneity_is_the_set_of_topics():
    base = {"kind": "share", "topics": {"t": 1, "u": 1}}
    same = ShareProblem.from_mapping({**base, "members": {"a": {"topics": ["t", "u"]}, "b": {"topics": ["u", "t"]}}})
    assert same.is_homogeneous
    assert ShareProblem.from_mapping({**base, "members": {}}).is_homogeneous
    differ = ShareProblem.from_mapping({**base, "members": {"a": {"topics": ["t"]}, "b": {"topics": []}}})
    assert not differ.is_homogeneous
