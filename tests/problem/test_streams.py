"""The Streams group model: the JSON scenario and assignment round-trip, bad input is one line naming the
field, what a real group presents is tolerated, and what makes an assignment valid."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from strategies_streams import streams_scenarios

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.streams import (
    StreamsAssignment,
    StreamsProblem,
    standby_shortfall,
    unavoidable_standby_shortfall,
    violations,
)

EXAMPLE = {
    "kind": "streams",
    "subtopologies": {"sub-1": {"tasks": 4, "stateful": True}, "sub-0": {"tasks": 2, "stateful": False}},
    "standby_replicas": 1,
    "rack_aware_tags": ["zone"],
    "members": {
        "m2": {"process": "p2", "client_tags": {"zone": "b"}},
        "m1": {
            "process": "p1",
            "instance_id": "host-1",
            "rack": "r1",
            "client_tags": {"zone": "a", "host": "h1"},
            "active": {"sub-1": [1, 0]},
            "standby": {"sub-1": [2]},
            "warmup": {"sub-1": [3]},
            "task_offsets": {"sub-1": {"2": 120, "3": 40}},
            "task_end_offsets": {"sub-1": {"2": 150, "3": 200}},
        },
    },
}


def problem(**changes) -> StreamsProblem:
    return StreamsProblem.from_mapping({**EXAMPLE, **changes})


def test_the_example_reads_as_written():
    p = problem()
    assert [s.id for s in p.subtopologies] == ["sub-1", "sub-0"]  # the scenario's order, not sorted
    assert p.member_ids == ("m1", "m2")
    assert p.tasks == (("sub-1", 0), ("sub-1", 1), ("sub-1", 2), ("sub-1", 3), ("sub-0", 0), ("sub-0", 1))
    assert p.stateful_tasks == (("sub-1", 0), ("sub-1", 1), ("sub-1", 2), ("sub-1", 3))
    assert p.processes == ("p1", "p2") and p.process_of("m2") == "p2"
    m1 = p.member["m1"]
    assert m1.active == (("sub-1", 0), ("sub-1", 1))
    assert m1.client_tags == (("host", "h1"), ("zone", "a"))
    assert m1.task_offsets == ((("sub-1", 2), 120), (("sub-1", 3), 40))
    assert (m1.instance_id, m1.rack, m1.warmup) == ("host-1", "r1", (("sub-1", 3),))
    assert p.standby_replicas == 1 and p.rack_aware_tags == ("zone",)
    assert p.stale_tasks() == {}


def test_round_trip():
    p = problem()
    assert StreamsProblem.from_mapping(p.to_mapping()) == p
    assert list(p.to_mapping()["subtopologies"]) == ["sub-1", "sub-0"]


@settings(max_examples=200)
@given(streams_scenarios())
def test_round_trip_of_any_scenario(scenario):
    p = StreamsProblem.from_mapping(scenario)
    again = StreamsProblem.from_mapping(p.to_mapping())
    assert again == p and again.to_mapping() == p.to_mapping()
    assert len(p.members) == len(scenario["members"])


def test_what_a_real_group_presents_is_kept():
    """A previous task of a removed subtopology or beyond a shrunk one, offsets for such tasks, one previous
    active task on two members, a rack-aware tag nobody has: accepted, kept, listed as stale."""
    members = {
        "a": {"process": "p", "active": {"gone": [0], "sub-1": [7]}, "task_offsets": {"gone": {"3": 5}}},
        "b": {"process": "q", "active": {"sub-1": [0]}},
        "c": {"process": "q", "active": {"sub-1": [0]}},
    }
    p = problem(members=members, rack_aware_tags=["nobody-has-this"])
    assert p.member["a"].active == (("gone", 0), ("sub-1", 7))
    assert p.stale_tasks() == {"a": (("gone", 0), ("gone", 3), ("sub-1", 7))}
    assert StreamsProblem.from_mapping(p.to_mapping()) == p


BAD = [
    ({"kind": "consumer"}, "kind", 'must be "streams", got string "consumer"'),
    ({"extra": 1}, "extra", "unknown key"),
    ({"standby_replicas": -1}, "standby_replicas", "must be non-negative, got -1"),
    ({"standby_replicas": True}, "standby_replicas", "must be an integer, got boolean true"),
    ({"standby_replicas": 2**31}, "standby_replicas", "must fit Kafka's int32"),
    ({"rack_aware_tags": "zone"}, "rack_aware_tags", "must be an array of client tag keys"),
    ({"rack_aware_tags": ["zone", "zone"]}, "rack_aware_tags[1]", 'tag "zone" is listed twice'),
    ({"rack_aware_tags": [""]}, "rack_aware_tags[0]", "must not be empty"),
    ({"subtopologies": []}, "subtopologies", "must be a JSON object"),
    ({"subtopologies": {"s": 3}}, "subtopologies.s", "must be a JSON object"),
    ({"subtopologies": {"s": {"tasks": 3}}}, "subtopologies.s", 'missing key "stateful"'),
    ({"subtopologies": {"s": {"tasks": 0, "stateful": True}}}, "subtopologies.s.tasks", "must be positive"),
    ({"subtopologies": {"s": {"tasks": 2.0, "stateful": True}}}, "subtopologies.s.tasks", "must be an integer"),
    ({"subtopologies": {"s": {"tasks": 1, "stateful": 1}}}, "subtopologies.s.stateful", "must be true or false"),
    ({"subtopologies": {"s": {"tasks": 1, "stateful": True, "x": 1}}}, "subtopologies.s.x", "unknown key"),
    ({"subtopologies": {"": {"tasks": 1, "stateful": True}}}, 'subtopologies.""', "must not be empty"),
    ({"members": {"m": {}}}, "members.m", 'missing key "process"'),
    ({"members": {"m": {"process": ""}}}, "members.m.process", "must not be empty"),
    ({"members": {"m": {"process": "p", "topics": []}}}, "members.m.topics", "unknown key"),
    ({"members": {"m": {"process": "p", "active": [0]}}}, "members.m.active", "must be a JSON object"),
    ({"members": {"m": {"process": "p", "active": {"s": [-1]}}}}, "members.m.active.s[0]", "must be non-negative"),
    ({"members": {"m": {"process": "p", "active": {"s": [2**31]}}}}, "members.m.active.s[0]", "int32"),
    ({"members": {"m": {"process": "p", "standby": {"s": [1, 1]}}}}, "members.m.standby.s[1]", "listed twice"),
    (
        {"members": {"m": {"process": "p", "active": {"s": [1]}, "warmup": {"s": [1]}}}},
        "members.m.warmup.s",
        "task s_1 is also in the member's active tasks",
    ),
    ({"members": {"m": {"process": "p", "client_tags": {"zone": 1}}}}, "members.m.client_tags.zone", "string"),
    ({"members": {"m": {"process": "p", "task_offsets": {"s": {"x": 1}}}}}, "members.m.task_offsets.s.x", "decimal"),
    ({"members": {"m": {"process": "p", "task_offsets": {"s": {"01": 1}}}}}, "members.m.task_offsets.s.01", "decimal"),
    ({"members": {"m": {"process": "p", "task_offsets": {"s": {"0": -3}}}}}, "members.m.task_offsets.s.0", "-3"),
    (
        {"members": {"m": {"process": "p", "task_end_offsets": {"s": {"0": 2**63}}}}},
        "members.m.task_end_offsets.s.0",
        "Kafka's long",
    ),
    (
        {"members": {"a": {"process": "p", "instance_id": "i"}, "b": {"process": "q", "instance_id": "i"}}},
        "members.b.instance_id",
        'is already the instance id of member "a"',
    ),
]


@pytest.mark.parametrize(("change", "field", "message"), BAD, ids=[b[1] for b in BAD])
def test_bad_input_is_one_line_naming_the_field(change, field, message):
    with pytest.raises(InputError) as caught:
        problem(**change)
    text = str(caught.value)
    assert "\n" not in text
    assert caught.value.field == field
    assert message in text


def test_missing_required_keys():
    for key in ("kind", "subtopologies", "members"):
        data = {k: v for k, v in EXAMPLE.items() if k != key}
        with pytest.raises(InputError) as caught:
            StreamsProblem.from_mapping(data, source="s.json")
        assert caught.value.field == key and str(caught.value).startswith(f"s.json: {key}: missing")


# -- assignments ---------------------------------------------------------------------------------------


def test_assignment_round_trip_and_repeats_kept():
    data = {"members": {"m2": {"active": {"sub-0": [1, 0]}}, "m1": {"active": {"sub-1": [0, 0]}, "standby": {}}}}
    a = StreamsAssignment.from_mapping(data)
    assert a.active_of("m1") == (("sub-1", 0), ("sub-1", 0))
    assert a.to_mapping() == {
        "members": {
            "m1": {"active": {"sub-1": [0, 0]}, "standby": {}},
            "m2": {"active": {"sub-0": [0, 1]}, "standby": {}},
        }
    }
    assert StreamsAssignment.from_mapping(a.to_mapping()) == a


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "members"),
        ({"members": {"m": {"active": {"s": ["0"]}}}}, "members.m.active.s[0]"),
        ({"members": {"m": {"warmup": {}}}}, "members.m.warmup"),
        ({"members": {"m": []}}, "members.m"),
    ],
)
def test_bad_assignment_names_the_field(data, field):
    with pytest.raises(InputError) as caught:
        StreamsAssignment.from_mapping(data)
    assert caught.value.field == field and "\n" not in str(caught.value)


VALID = {
    "m1": ([("sub-1", 0), ("sub-1", 1), ("sub-0", 0)], [("sub-1", 2), ("sub-1", 3)]),
    "m2": ([("sub-1", 2), ("sub-1", 3), ("sub-0", 1)], [("sub-1", 0), ("sub-1", 1)]),
}


def test_a_valid_assignment_has_no_violation():
    p = problem()
    assert violations(p, StreamsAssignment(VALID)) == ()
    assert standby_shortfall(p, StreamsAssignment(VALID)) == 0


def kinds(p: StreamsProblem, members: dict) -> list[str]:
    return [v.kind for v in violations(p, StreamsAssignment(members))]


def test_each_violation_kind():
    p = problem()
    # an active task given twice, and nowhere
    assert kinds(p, {**VALID, "m2": ([("sub-1", 2), ("sub-1", 2), ("sub-0", 1)], [("sub-1", 0), ("sub-1", 1)])}) == [
        "duplicated",
        "same-process",
        "missing",
    ]
    # a standby beside its active (one process), a standby of a stateless task
    assert kinds(p, {**VALID, "m1": (VALID["m1"][0], [("sub-1", 0), ("sub-1", 2), ("sub-1", 3)])}) == [
        "same-process",
        "too-many-standbys",
    ]
    assert kinds(p, {**VALID, "m1": (VALID["m1"][0], [*VALID["m1"][1], ("sub-0", 1)])}) == ["stateless-standby"]
    # unknown member, unknown task
    assert kinds(p, {**VALID, "ghost": ([("sub-1", 0)], [])}) == ["unknown"]
    assert kinds(p, {**VALID, "m1": ([*VALID["m1"][0], ("sub-1", 9), ("nope", 0)], VALID["m1"][1])}) == ["unknown"]
    text = str(violations(p, StreamsAssignment({**VALID, "ghost": ([("sub-1", 0)], [])}))[0])
    assert text == "unknown (member ghost): sub-1_0: not a member of the group"


def test_two_members_of_one_process_cannot_split_a_task():
    p = problem(members={"a": {"process": "p"}, "b": {"process": "p"}, "c": {"process": "q"}})
    members = {
        "a": ([("sub-1", 0), ("sub-1", 1), ("sub-1", 2), ("sub-1", 3)], []),
        "b": ([("sub-0", 0), ("sub-0", 1)], [("sub-1", 0)]),
        "c": ([], [("sub-1", 1), ("sub-1", 2), ("sub-1", 3)]),
    }
    assert kinds(p, members) == ["same-process"]


def test_fewer_standbys_is_valid_and_counted():
    p = problem(standby_replicas=3)  # two processes: at most one standby per task
    a = StreamsAssignment(VALID)
    assert violations(p, a) == ()
    assert standby_shortfall(p, a) == 4 * 2 == unavoidable_standby_shortfall(p)
    assert standby_shortfall(p, StreamsAssignment({"m1": (VALID["m1"][0], []), "m2": (VALID["m2"][0], [])})) == 12


def test_the_documented_examples():
    """docs/formats.md, "Streams groups": the scenario, the assignment and the error line are what the code does."""
    import json
    import re
    from pathlib import Path

    text = Path(__file__).parents[2].joinpath("docs", "formats.md").read_text()
    section = text[text.index("## Streams groups") :]
    scenario_text, assignment_text = re.findall(r"```json\n(.*?)```", section, re.S)[:2]
    p = StreamsProblem.from_mapping(json.loads(scenario_text))
    a = StreamsAssignment.from_mapping(json.loads(assignment_text))
    assert violations(p, a) == () and standby_shortfall(p, a) == 3
    bad = json.loads(scenario_text)
    bad["members"]["m1"]["active"] = {"sub-1": [0, 1, 3]}  # sub-1_3 is also its warm-up task
    with pytest.raises(InputError) as caught:
        StreamsProblem.from_mapping(bad, source="s.json")
    assert f"\n    {caught.value}\n" in section


def test_more_tasks_than_the_limit_is_refused_before_any_task_is_built():
    """Two subtopologies of 1.5 billion tasks each: 3,000,000,000 > MAX_TASKS; the sum is named, nothing per task
    is allocated (the refusal comes before ``tasks``; building them would take hundreds of GiB)."""
    scenario = {
        "kind": "streams",
        "subtopologies": {
            "s": {"tasks": 1_500_000_000, "stateful": True},
            "t": {"tasks": 1_500_000_000, "stateful": False},
        },
        "members": {"a": {"process": "p"}},
    }
    with pytest.raises(InputError) as caught:
        StreamsProblem.from_mapping(scenario)
    assert "subtopologies: 3,000,000,000 tasks in all, more than the limit of 10,000,000" in str(caught.value)
    small = {**scenario, "subtopologies": {"s": {"tasks": 3, "stateful": True}}}
    with pytest.raises(InputError, match="3 tasks in all, more than the limit of 2"):
        StreamsProblem.from_mapping(small, max_tasks=2)
    assert len(StreamsProblem.from_mapping(small, max_tasks=3).tasks) == 3
