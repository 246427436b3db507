"""The Streams group entries of the bug corpus: each replays as expected, and each finding is checked on its own.

The independent checks do not read the oracle: the better assignment is written out by hand, checked valid
with :func:`problem.streams.violations` and better on the entry's tier with
:func:`optimal.streams_request.measure`; Kafka's answer (the port in Java's iteration order, and in sorted
order) is compared with values derived by hand from Kafka's code (each test says how).
"""

from __future__ import annotations

import json

import pytest

from assignment_oracle.compare.scenarios.bugs import BUGS, STREAMS_STICKY, STREAMS_STICKY_JAVA, find, replay
from assignment_oracle.heuristics.streams_sticky import assign
from assignment_oracle.optimal.streams_request import measure
from assignment_oracle.problem.streams import (
    MemberTasks,
    StreamsAssignment,
    StreamsProblem,
    standby_shortfall,
    violations,
)

STREAMS_ENTRIES = sorted(name for name, bug in BUGS.items() if bug.streams)
ORDERS = ("java", "sorted")


def test_the_streams_entries_are_there_and_cite_kafkas_lines():
    assert set(STREAMS_ENTRIES) == {
        "streams-actives-ignore-standbys",
        "streams-fresh-standbys-uneven",
        "streams-fed-back-moves-standby",
        "streams-idle-member-process-average",
        "streams-keeps-stateless-moves-stateful",
    }
    for name in STREAMS_ENTRIES:
        bug = BUGS[name]
        assert "StickyTaskAssignor.java at d79bd50" in bug.source and " lines " in bug.source
        assert {v.name for v in bug.shown_by} == {STREAMS_STICKY_JAVA.name, STREAMS_STICKY.name}
        assert find(name.upper()) == (name,)
    assert find("KAFKA-21060") == ()  # named after what it shows; the JIRA is in its source
    assert "KAFKA-21060" in BUGS["streams-actives-ignore-standbys"].source


@pytest.mark.parametrize("name", STREAMS_ENTRIES)
def test_each_streams_entry_replays_as_expected(name):
    result = replay(name)
    assert result.as_expected and result.reproduced and result.fixed, result.finding
    document = json.loads(json.dumps(result.to_mapping()))
    assert document["name"] == name and document["as_expected"] is True
    row = document["rows"][0][STREAMS_STICKY_JAVA.name]
    assert row["status"] == "ok" and row["valid"] is True
    assert result.text().startswith(f"{name}: ") and "as expected" in result.text()
    assert result.explanation is None


@pytest.mark.parametrize("name", STREAMS_ENTRIES)
def test_a_streams_replay_out_of_time_is_not_judged(name):
    result = replay(name, time_limit=1e-6)
    assert not result.as_expected and result.finding.startswith("not judged: ")


def problem_of(name: str) -> StreamsProblem:
    (problem,) = BUGS[name].problems()
    return problem


def answers(problem: StreamsProblem) -> dict[str, StreamsAssignment]:
    return {order: assign(problem, iteration_order=order) for order in ORDERS}


def tasks(active: dict | None = None, standby: dict | None = None) -> MemberTasks:
    """A member's tasks from ``{subtopology: [partitions]}`` maps, sorted as an assignment keeps them."""
    return MemberTasks(
        tuple(sorted((s, p) for s, ps in (active or {}).items() for p in ps)),
        tuple(sorted((s, p) for s, ps in (standby or {}).items() for p in ps)),
    )


def valid_and_complete(problem: StreamsProblem, assignment: StreamsAssignment) -> bool:
    return violations(problem, assignment) == () and standby_shortfall(problem, assignment) == 0


def test_actives_ignore_standbys():
    """Step 3 of assignActive deals s0_0, s1_0, s2_0 (subtopology order) to the least loaded process: p0,
    p1, then p0 again (the tie after one each goes to the heap's first, p0).  s1_0's standby must avoid p1,
    so it goes to m0: 3 tasks and 1.  By hand: s1_0 active beside s0_0 on m0, its standby beside s2_0 on
    m1: 2 and 2."""
    problem = problem_of("streams-actives-ignore-standbys")
    for result in answers(problem).values():
        assert result.members["m0"] == tasks({"s0": [0], "s2": [0]}, {"s1": [0]})
        assert result.members["m1"] == tasks({"s1": [0]})
        assert measure(problem, result).value("task-balance") == [3, 1]
    even = StreamsAssignment({"m0": tasks({"s0": [0], "s1": [0]}), "m1": tasks({"s2": [0]}, {"s1": [0]})})
    assert valid_and_complete(problem, even)
    assert measure(problem, even).value("active-balance") == [2, 1]  # as balanced in actives as Kafka
    assert measure(problem, even).value("task-balance") == [2, 2]


def test_fresh_standbys_uneven():
    """Actives: two each.  Standbys, s_5 down to s_0, each to the least loaded process without the task: the
    last, s_0, finds m0 (3 tasks) running s_0 and goes to a member already at 4.  By hand, 4 each: every member
    runs two tasks and keeps the standbys of the two tasks the next member runs."""
    problem = problem_of("streams-fresh-standbys-uneven")
    for result in answers(problem).values():
        assert measure(problem, result).value("active-balance") == [2, 2, 2]
        assert measure(problem, result).value("task-balance") == [5, 4, 3]
        assert valid_and_complete(problem, result)
    even = StreamsAssignment(
        {
            "m0": tasks({"s": [0, 1]}, {"s": [4, 5]}),
            "m1": tasks({"s": [2, 3]}, {"s": [0, 1]}),
            "m2": tasks({"s": [4, 5]}, {"s": [2, 3]}),
        }
    )
    assert valid_and_complete(problem, even)
    assert measure(problem, even).value("task-balance") == [4, 4, 4]


def fed_back(problem: StreamsProblem, result: StreamsAssignment) -> StreamsProblem:
    members = {}
    for member in problem.members:
        entry: dict = {"process": member.process_id}
        given = result.members[member.member_id]
        for role, listed in (("active", given.active), ("standby", given.standby)):
            for s, p in listed:
                entry.setdefault(role, {}).setdefault(s, []).append(p)
        members[member.member_id] = entry
    data = problem.to_mapping()
    return StreamsProblem.from_mapping({**data, "members": members})


def test_fed_back_moves_a_standby_for_nothing():
    """The first answer gives m1 s_2, s_4 and the standbys of s_0, s_1, s_3 (5 tasks; the quota,
    ceil(12 / 3), is 4).  Fed back: m1's actives are kept first (2), then the standbys from s_5 down: m1 takes
    s_3 (3) and s_1 (4 = the quota: the quota drops), and when s_0 comes m1 is at the quota, so
    hasUnfulfilledTaskQuota refuses it; the least loaded process without s_0 is m2's.  So s_0's standby moves
    from m1 to m2, and the counts are 5/4/3 again.  A second feed back keeps everything; the balanced answer
    (by hand, 4 each) fed back is kept as it is."""
    problem = problem_of("streams-fed-back-moves-standby")
    for order in ORDERS:
        first = assign(problem, iteration_order=order)
        assert first.members["m1"] == tasks({"s": [2, 4]}, {"s": [0, 1, 3]})
        again = assign(fed_back(problem, first), iteration_order=order)
        for member in problem.member_ids:
            assert again.members[member].active == first.members[member].active
        assert set(first.members["m1"].standby) - set(again.members["m1"].standby) == {("s", 0)}
        assert set(again.members["m2"].standby) - set(first.members["m2"].standby) == {("s", 0)}
        assert measure(problem, again).value("task-balance") == [5, 4, 3]
        assert assign(fed_back(problem, again), iteration_order=order) == again
        even = StreamsAssignment(
            {
                "m0": tasks({"s": [0, 1]}, {"s": [4, 5]}),
                "m1": tasks({"s": [2, 3]}, {"s": [0, 1]}),
                "m2": tasks({"s": [4, 5]}, {"s": [2, 3]}),
            }
        )
        assert assign(fed_back(problem, even), iteration_order=order) == even


def test_idle_member_process_average():
    """m3 keeps s0_0, s0_1 (quota ceil(5 / 4) = 2, then ceil(3 / 3) = 1).  s0_2: p0 (load 0) before p1 (2/3);
    s0_3: p1 (2/3 < 1), its least loaded member m1; s0_4: p0 and p1 both at load 1, the heap gives p0.  m2 gets
    nothing, and fed back nothing moves.  By hand: s0_2, s0_3, s0_4 one each to m0, m1, m2, m3 keeping its two."""
    problem = problem_of("streams-idle-member-process-average")
    for order, result in answers(problem).items():
        assert result.members["m0"] == tasks({"s0": [2, 4]})
        assert result.members["m1"] == tasks({"s0": [3]})
        assert result.members["m2"] == tasks()
        assert result.members["m3"] == tasks({"s0": [0, 1]})
        assert assign(fed_back(problem, result), iteration_order=order) == result
    fair = StreamsAssignment(
        {
            "m0": tasks({"s0": [2]}),
            "m1": tasks({"s0": [3]}),
            "m2": tasks({"s0": [4]}),
            "m3": tasks({"s0": [0, 1]}),
        }
    )
    assert valid_and_complete(problem, fair)
    mine = measure(problem, fair)
    assert mine.value("active-balance") == [2, 1, 1, 1] and mine.actives_kept == 2  # as sticky as Kafka


def test_keeps_stateless_moves_stateful():
    """Quota ceil(2 / 2) = 1; step 1 walks m1's previous actives by (partition, subtopology): s0_0 first, kept
    (the quota is met), s1_0 refused and dealt to m0.  By hand: m1 keeps the stateful s1_0, m0 takes the
    stateless s0_0: as balanced, as many actives kept, one more active on its state."""
    problem = problem_of("streams-keeps-stateless-moves-stateful")
    for result in answers(problem).values():
        assert result.members["m1"] == tasks({"s0": [0]})
        assert result.members["m0"] == tasks({"s1": [0]})
        assert measure(problem, result).stickiness == [1, 0, 0, 0]
    better = StreamsAssignment({"m0": tasks({"s0": [0]}), "m1": tasks({"s1": [0]})})
    assert valid_and_complete(problem, better)
    assert measure(problem, better).value("active-balance") == [1, 1]
    assert measure(problem, better).stickiness == [1, 1, 0, 0]
