"""The exact Streams model (KIP-1071, :mod:`optimal.streams`) through the front door, ``optimal.solve``:
judged by brute force on tiny groups, in every order of its tiers, against Kafka's port, and on worked
examples derived by hand.

Expected values come from :func:`optimal.brute_force.streams_optimum`, which enumerates every valid
assignment from the rule (each task's active on any member, each stateful task's standbys on exactly
``min(standby_replicas, processes - 1)`` members of distinct other processes) and scores each with the one
measure, :func:`optimal.streams_request.measure`.  Nothing here reads the model's parts.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies_streams import random_streams_scenario, streams_scenarios

from assignment_oracle.heuristics.streams_sticky import ITERATION_ORDERS
from assignment_oracle.heuristics.streams_sticky import assign as kafka_assign
from assignment_oracle.optimal import FEASIBLE, OPTIMAL, UNKNOWN, solve
from assignment_oracle.optimal.brute_force import StreamsBruteOptimum, streams_choices, streams_optimum
from assignment_oracle.optimal.streams_request import (
    ACTIVE_BALANCE,
    STICKINESS,
    STREAMS_TIERS,
    TAG_DIVERSITY,
    TASK_BALANCE,
    StreamsRequest,
    better,
    measure,
)
from assignment_oracle.problem.errors import SolverError, UnsupportedRequest
from assignment_oracle.problem.streams import (
    StreamsAssignment,
    StreamsProblem,
    standby_shortfall,
    streams_assignment_to_mapping,
    unavoidable_standby_shortfall,
    violations,
)

#: The most assignments a test enumerates (about 45 µs each).
LIMIT = 6_000
TINY = dict(max_subtopologies=2, max_tasks=3, max_processes=3, max_members_per_process=2, max_standby_replicas=2)


# -- helpers -------------------------------------------------------------------------------------------


def _process_tags(scenario: dict) -> dict:
    """The scenario with every member's client tags those of its process's first member: what a real group
    has (client tags are a Kafka Streams instance's config, ``client.tag.*``, so one per process)."""
    out = copy.deepcopy(scenario)
    first: dict[str, dict | None] = {}
    for member in out["members"].values():
        tags = first.setdefault(member["process"], member.get("client_tags"))
        if tags is None:
            member.pop("client_tags", None)
        else:
            member["client_tags"] = dict(tags)
    return out


def _tags_disagree(problem: StreamsProblem) -> bool:
    """Whether two members of one process carry different values (or one none) for a rack-aware tag."""
    for members in problem.process_members.values():
        for key in problem.rack_aware_tags:
            if len({dict(problem.member[m].client_tags).get(key) for m in members}) > 1:
                return True
    return False


def _size(problem: StreamsProblem) -> int:
    size = 1
    for _, ways in streams_choices(problem):
        size *= len(ways)
    return size


def _tiny(problem: StreamsProblem) -> StreamsProblem:
    """``problem``, if the brute force can enumerate it quickly (else the example is not drawn)."""
    assume(len(problem.tasks) <= 5 and _size(problem) <= LIMIT)
    return problem


@st.composite
def tiny_problems(draw, *, tags: bool | None = None, tight: bool = False) -> StreamsProblem:
    """Tiny groups with at least one task: at most 3 processes of at most 2 members, 5 tasks, 2 standby
    replicas (drawn from 1-2 two times in three, and mostly two processes or more, so standbys are common),
    client tags one per process.  ``tags``: rack-aware tags always (``True``), never (``False``) or as drawn
    (``None``).  ``tight``: every task stateful, 2 replicas, two processes or more, so a task's copies are
    on all or all but one of the processes."""
    scenario = _process_tags(draw(streams_scenarios(**TINY)))
    if tags is True:
        scenario["rack_aware_tags"] = draw(st.lists(st.sampled_from(["zone", "rack", "host"]), min_size=1, unique=True))
    elif tags is False:
        scenario.pop("rack_aware_tags", None)
    if tight:
        for sub in scenario["subtopologies"].values():
            sub["stateful"] = True
        scenario["standby_replicas"] = 2
    elif draw(st.integers(0, 2)):
        scenario["standby_replicas"] = draw(st.integers(1, 2))
    problem = _tiny(StreamsProblem.from_mapping(scenario))
    assume(problem.tasks)
    if tight or draw(st.integers(0, 3)):  # mostly two processes or more: standbys to place
        assume(len(problem.processes) >= 2)
    return problem


def _assert_valid(problem: StreamsProblem, solution) -> None:
    """The answer is valid, gives every standby that can be placed, and shows exactly the reported values."""
    assignment = solution.assignment
    assert assignment is not None, (solution.status, solution.message)
    assert not violations(problem, assignment), [str(v) for v in violations(problem, assignment)]
    assert set(assignment.members) <= set(problem.member_ids)
    assert standby_shortfall(problem, assignment) == unavoidable_standby_shortfall(problem)
    measured = measure(problem, assignment)
    assert measured.shortfall == 0
    assert [t.tier for t in solution.tiers] == list(solution.objective_order)
    assert measured.values(solution.objective_order) == [t.value for t in solution.tiers]


def _assert_optimal(problem: StreamsProblem, request: StreamsRequest, solution, expected: StreamsBruteOptimum):
    assert solution.status == OPTIMAL, (solution.status, solution.message, solution.stages)
    assert tuple(solution.objective_order) == request.tiers(problem) == expected.tiers  # no tier dropped or added
    assert [t.value for t in solution.tiers] == expected.values
    assert all(t.proven and t.bound == t.value for t in solution.tiers)
    _assert_valid(problem, solution)


def _expect(problem: StreamsProblem, request: StreamsRequest | None = None) -> StreamsBruteOptimum:
    expected = streams_optimum(problem, request, limit=LIMIT)
    assert expected is not None  # every drawn group has a member
    return expected


def _canonical(solution) -> str:
    return json.dumps(streams_assignment_to_mapping(solution.assignment), sort_keys=True)


# -- the brute force itself ----------------------------------------------------------------------------


def test_the_brute_force_counts_every_valid_assignment_and_refuses_above_its_limit():
    """3 processes (p1: a, b; p2: c; p3: d), one stateful task, 2 standbys (all that 3 processes can hold):
    the active on any of 4 members, the standbys one member on each of the two other processes: active on
    a or b -> c and d (1 way each); on c -> {a or b} and d (2); on d -> {a or b} and c (2): 6 assignments,
    every one valid with both standbys.  With 3 replicas the same 6 (min(3, 3 - 1) = 2 standbys)."""
    members = {"a": {"process": "p1"}, "b": {"process": "p1"}, "c": {"process": "p2"}, "d": {"process": "p3"}}
    for replicas in (2, 3):
        problem = StreamsProblem.from_mapping(
            {
                "kind": "streams",
                "standby_replicas": replicas,
                "subtopologies": {"s": {"tasks": 1, "stateful": True}},
                "members": members,
            }
        )
        [(task, ways)] = streams_choices(problem)
        assert task == ("s", 0) and len(ways) == 6
        assert {(active, frozenset(standbys)) for active, standbys in ways} == {
            ("a", frozenset("cd")),
            ("b", frozenset("cd")),
            ("c", frozenset("ad")),
            ("c", frozenset("bd")),
            ("d", frozenset("ac")),
            ("d", frozenset("bc")),
        }
        best = streams_optimum(problem)
        assert best.enumerated == 6
        # active-balance [1,0,0,0] always; task-balance [1,1,1,0]: a or b idle, the other holds a copy
        assert best.values == [[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]] and best.optimal_count == 6
        assert not violations(problem, best.assignment)
        assert standby_shortfall(problem, best.assignment) == unavoidable_standby_shortfall(problem)
    with pytest.raises(ValueError, match="too many"):
        streams_optimum(problem, limit=5)
    nobody = StreamsProblem.from_mapping(
        {"kind": "streams", "subtopologies": {"s": {"tasks": 1, "stateful": False}}, "members": {}}
    )
    assert streams_optimum(nobody) is None


# -- the exact model against the brute force ----------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(tiny_problems())
def test_the_exact_model_equals_the_brute_force(problem):
    """Kafka's order: OPTIMAL, every tier value the brute force's best, the answer valid and measured so."""
    _assert_optimal(problem, StreamsRequest(), solve(problem), _expect(problem))


@settings(max_examples=80, deadline=None)
@given(tiny_problems(tags=True))
def test_the_exact_model_equals_the_brute_force_with_rack_aware_tags(problem):
    """``tag-diversity`` a tier: the same, tag values one per process."""
    request = StreamsRequest()
    assert TAG_DIVERSITY in request.tiers(problem)
    _assert_optimal(problem, request, solve(problem), _expect(problem))


@settings(max_examples=60, deadline=None)
@given(tiny_problems(tags=None, tight=True))
def test_the_exact_model_equals_the_brute_force_on_tight_groups(problem):
    """Every task stateful, 2 replicas, 2-3 processes: a task's copies on all or all but one process."""
    _assert_optimal(problem, StreamsRequest(), solve(problem), _expect(problem))


def test_a_group_whose_free_copies_are_hard_to_deal_out():
    """A group drawn by the strategy on which the model's first (core) answer could not be dealt out to the
    processes, so its full model answered (at the time of writing): p1 has two members, p2 one; 3 stateful
    tasks with 1 standby each, a stateless one.  Whatever path the model takes, the brute force's optimum."""
    problem = _group(
        {"x": {"tasks": 1, "stateful": False}, "e": {"tasks": 3, "stateful": True}},
        {
            "m0": {"process": "p2", "active": {"e": [0]}, "standby": {"e": [1]}, "task_offsets": {"e": {"1": 9}}},
            "m1": {"process": "p1", "warmup": {"x": [0]}},
            "m2": {"process": "p1", "active": {"e": [1]}, "standby": {"e": [0]}},
        },
        standby_replicas=1,
    )
    _assert_optimal(problem, StreamsRequest(), solve(problem), _expect(problem))
    for order in itertools.permutations(STREAMS_TIERS):
        request = StreamsRequest(objective=order)
        _assert_optimal(problem, request, solve(problem, request), _expect(problem, request))


@settings(max_examples=60, deadline=None)
@given(tiny_problems(tags=None), st.permutations(STREAMS_TIERS))
def test_every_order_of_the_tiers_equals_the_brute_force(problem, order):
    request = StreamsRequest(objective=tuple(order))
    _assert_optimal(problem, request, solve(problem, request), _expect(problem, request))


@settings(max_examples=40, deadline=None)
@given(streams_scenarios(**TINY))
def test_members_of_one_process_with_different_tags(scenario):
    """Tags as drawn, per member (a process's members may disagree, which no real group presents): the model
    answers the brute force's optimum, or -- only when the tier is asked and a process's members disagree --
    refuses with :class:`UnsupportedRequest` naming the disagreement."""
    scenario["rack_aware_tags"] = ["zone", "rack"]
    problem = _tiny(StreamsProblem.from_mapping(scenario))
    try:
        solution = solve(problem)
    except UnsupportedRequest as refusal:
        assert _tags_disagree(problem) and "disagree" in str(refusal)
        return
    _assert_optimal(problem, StreamsRequest(), solution, _expect(problem))


def test_every_order_on_a_group_where_the_orders_disagree():
    """Each of the 24 orders of the four tiers on one group where the tiers pull apart (previous tasks
    piled on one member, state elsewhere, tags): each order's optimum is the brute force's."""
    problem = StreamsProblem.from_mapping(
        {
            "kind": "streams",
            "standby_replicas": 1,
            "rack_aware_tags": ["zone"],
            "subtopologies": {"s": {"tasks": 3, "stateful": True}, "u": {"tasks": 1, "stateful": False}},
            "members": {
                "a": {"process": "p1", "client_tags": {"zone": "z1"}, "active": {"s": [0, 1, 2], "u": [0]}},
                "b": {"process": "p1", "client_tags": {"zone": "z1"}, "standby": {"s": [0]}},
                "c": {"process": "p2", "client_tags": {"zone": "z1"}, "standby": {"s": [1, 2]}},
                "d": {"process": "p3", "client_tags": {"zone": "z2"}, "task_offsets": {"s": {"0": 5}}},
            },
        }
    )
    seen = set()
    for order in itertools.permutations(STREAMS_TIERS):
        request = StreamsRequest(objective=order)
        expected = streams_optimum(problem, request, limit=50_000)
        _assert_optimal(problem, request, solve(problem, request), expected)
        seen.add(json.dumps(dict(zip(expected.tiers, expected.values)), sort_keys=True))
    assert len(seen) > 1  # the orders do disagree on this group


# -- determinism and time limits ------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(tiny_problems())
def test_the_same_problem_gets_the_same_answer(problem):
    first, second = solve(problem), solve(problem)
    assert first.assignment == second.assignment
    assert _canonical(first) == _canonical(second)
    again = solve(StreamsProblem.from_mapping(json.loads(json.dumps(problem.to_mapping()))))
    assert _canonical(again) == _canonical(first)


def _within(tier: str, value, bound) -> bool:
    """Whether ``value`` is no better than ``bound`` on ``tier``: a balance vector not lexicographically
    below it, tag diversity not above it, each stickiness number not above its own."""
    if tier in (ACTIVE_BALANCE, TASK_BALANCE):
        return list(value) >= list(bound)
    if tier == TAG_DIVERSITY:
        return value <= bound
    return len(value) == len(bound) and all(v <= b for v, b in zip(value, bound))


@settings(max_examples=40, deadline=None)
@given(tiny_problems(), st.sampled_from([0.0, 1e-9]))
def test_no_time_is_never_a_proof(problem, time_limit):
    """With (almost) no time: ``OPTIMAL`` only with every tier proven; ``FEASIBLE`` a valid answer with a tier
    unproven; ``UNKNOWN`` no answer and nothing proven.  A tier claimed proven after proven tiers has the
    brute force's value; an unproven one carries a bound that the brute force's optimum and the answer
    both stay within (issue 40: the best bound known, never a claim); the answer is never better than the
    optimum."""
    solution = solve(problem, time_limit=time_limit)
    expected = _expect(problem)
    tiers = StreamsRequest().tiers(problem)
    assert [t.tier for t in solution.tiers] == list(tiers)
    proven = [t.proven for t in solution.tiers]
    assert solution.status in (OPTIMAL, FEASIBLE, UNKNOWN)
    assert (solution.status == OPTIMAL) == (all(proven) and solution.assignment is not None)
    for t, best in zip(solution.tiers, expected.values):
        if t.proven:
            assert t.bound == t.value
        else:
            assert t.bound is not None and _within(t.tier, best, t.bound), (t, best)
            assert t.value is None or _within(t.tier, t.value, t.bound), t
    if solution.status == UNKNOWN:
        assert solution.assignment is None and not any(proven) and solution.message
        return
    _assert_valid(problem, solution)
    values = [t.value for t in solution.tiers]
    assert better(tiers, values, expected.values) >= 0  # never better than the optimum
    for i, tier in enumerate(tiers):
        if not proven[i]:
            break
        assert values[i] == expected.values[i], (tier, values[i], expected.values[i])
    if solution.status == FEASIBLE:
        assert not all(proven) and solution.message


# -- against Kafka's port -----------------------------------------------------------------------------


def _assert_no_worse_than_kafka(problem: StreamsProblem, solution) -> int:
    """The optimum is at least as good as Kafka's port (both iteration orders) on the lexicographic tiers,
    wherever the port's answer is valid and gives every placeable standby; how many such answers."""
    tiers = solution.objective_order
    ours = [t.value for t in solution.tiers]
    compared = 0
    for iteration_order in ITERATION_ORDERS:
        theirs = kafka_assign(problem, iteration_order=iteration_order)
        if violations(problem, theirs) or measure(problem, theirs).shortfall:
            continue
        kafka_values = measure(problem, theirs).values(tiers)
        assert better(tiers, ours, kafka_values) <= 0, (iteration_order, ours, kafka_values)
        compared += 1
    return compared


@settings(max_examples=100, deadline=None)
@given(tiny_problems(tags=None))
def test_the_optimum_is_never_worse_than_kafka_on_tiny_groups(problem):
    solution = solve(problem)
    _assert_optimal(problem, StreamsRequest(), solution, _expect(problem))
    _assert_no_worse_than_kafka(problem, solution)


@settings(max_examples=40, deadline=None)
@given(
    streams_scenarios(
        max_subtopologies=3, max_tasks=5, max_processes=4, max_members_per_process=3, max_standby_replicas=2
    ).map(_process_tags)
)
def test_the_optimum_is_never_worse_than_kafka_on_small_groups(scenario):
    """Beyond the brute force's reach: OPTIMAL, valid, and no worse than the port."""
    problem = StreamsProblem.from_mapping(scenario)
    solution = solve(problem, time_limit=60)
    assert solution.status == OPTIMAL, (solution.status, solution.message, solution.stages)
    _assert_valid(problem, solution)
    _assert_no_worse_than_kafka(problem, solution)


# -- worked examples -----------------------------------------------------------------------------------


def _group(subtopologies: dict, members: dict, **configs) -> StreamsProblem:
    return StreamsProblem.from_mapping(
        {"kind": "streams", "subtopologies": subtopologies, "members": members, **configs}
    )


def _tasks_of(assignment: StreamsAssignment, member: str) -> tuple[set, set]:
    return set(assignment.active_of(member)), set(assignment.standby_of(member))


def test_a_fresh_group_is_perfectly_balanced():
    """3 processes of one member, one stateful subtopology of 3 tasks, 1 standby, no history.

    Active tasks: 3 over 3 members, the ideal is floor = ceil = 1 each: [1, 1, 1], reachable (task i to
    member i).  Standbys: min(1, 3 - 1) = 1 per task, 3 in all, so 6 copies over 3 members: [2, 2, 2],
    reachable (member i also takes task i+1 mod 3 as standby, another process).  Nobody has state, so
    stickiness is [0, 0, 0, 0].  Each member: one active and one standby of a different task."""
    problem = _group(
        {"s": {"tasks": 3, "stateful": True}},
        {"a": {"process": "p1"}, "b": {"process": "p2"}, "c": {"process": "p3"}},
        standby_replicas=1,
    )
    solution = solve(problem)
    _assert_optimal(problem, StreamsRequest(), solution, _expect(problem))
    assert [t.value for t in solution.tiers] == [[1, 1, 1], [2, 2, 2], [0, 0, 0, 0]]
    for m in "abc":
        active, standby = _tasks_of(solution.assignment, m)
        assert len(active) == len(standby) == 1 and not active & standby
    assert _assert_no_worse_than_kafka(problem, solution) == 2


def test_the_previous_owners_keep_everything():
    """2 processes of one member, one stateful subtopology of 2 tasks, 1 standby.  a had s0 active and s1 as
    standby, b the reverse.  That previous assignment is valid, balanced at the ideal (actives [1, 1]:
    2 over 2; copies [2, 2]: 2 + 2 standbys over 2), and keeps both actives (both on state) and both
    standbys (both on state): every stickiness number at its most, [actives kept, actives on state, standbys
    kept, standbys on state] = [2, 2, 2, 2], so it is the unique optimum."""
    problem = _group(
        {"s": {"tasks": 2, "stateful": True}},
        {
            "a": {"process": "p1", "active": {"s": [0]}, "standby": {"s": [1]}},
            "b": {"process": "p2", "active": {"s": [1]}, "standby": {"s": [0]}},
        },
        standby_replicas=1,
    )
    solution = solve(problem)
    expected = _expect(problem)
    _assert_optimal(problem, StreamsRequest(), solution, expected)
    assert expected.optimal_count == 1
    assert [t.value for t in solution.tiers] == [[1, 1], [2, 2], [2, 2, 2, 2]]
    assert _tasks_of(solution.assignment, "a") == ({("s", 0)}, {("s", 1)})
    assert _tasks_of(solution.assignment, "b") == ({("s", 1)}, {("s", 0)})


def test_balance_forces_a_move_and_the_optimum_keeps_the_most():
    """2 processes of one member, one stateful subtopology of 4 tasks, no standbys.  a had all 4 active; b
    reported offsets for s2 and s3 (state on its disk).  active-balance first: [2, 2], so a must give up
    two; a keeps the other two (actives kept 2, the most a balanced answer allows).  Actives on state: a has
    state for all 4, b for s2 and s3, so b taking exactly s2 and s3 puts all 4 actives on state.  No
    standbys.  The unique optimum: a {s0, s1}, b {s2, s3}, stickiness [2, 4, 0, 0].  Stickiness first
    instead: a keeps all four ([4, 4, 0, 0]), the balances [4, 0]."""
    problem = _group(
        {"s": {"tasks": 4, "stateful": True}},
        {
            "a": {"process": "p1", "active": {"s": [0, 1, 2, 3]}},
            "b": {"process": "p2", "task_offsets": {"s": {"2": 10, "3": 0}}},
        },
    )
    solution = solve(problem)
    expected = _expect(problem)
    _assert_optimal(problem, StreamsRequest(), solution, expected)
    assert expected.optimal_count == 1
    assert [t.value for t in solution.tiers] == [[2, 2], [2, 2], [2, 4, 0, 0]]
    assert _tasks_of(solution.assignment, "a") == ({("s", 0), ("s", 1)}, set())
    assert _tasks_of(solution.assignment, "b") == ({("s", 2), ("s", 3)}, set())
    # stickiness first instead: a keeps all four
    first = StreamsRequest(objective=(STICKINESS, ACTIVE_BALANCE, TASK_BALANCE, TAG_DIVERSITY))
    solution = solve(problem, first)
    _assert_optimal(problem, first, solution, _expect(problem, first))
    assert [t.value for t in solution.tiers] == [[4, 4, 0, 0], [4, 0], [4, 0]]


def test_standbys_go_where_the_zones_differ():
    """3 processes of one member: a and b in zone z1, c in z2 (b also has a rack tag, which is not asked
    for); one stateful subtopology of 2 tasks, 1 standby, rack-aware tag ``zone``, no history.

    active-balance: 2 over 3, [1, 1, 0].  task-balance: 2 actives + 2 standbys = 4 over 3, [2, 1, 1].
    tag-diversity: each task's two copies see at most both zones, 2 per task, 4 in all, exactly when c
    holds a copy of each task: then c has 2 copies, a and b one each, which is [2, 1, 1], so the
    balances allow it.  Without the tag tier the pair {a, b} for one task would do as well; with it, c
    holds a copy (active or standby) of both tasks."""
    problem = _group(
        {"s": {"tasks": 2, "stateful": True}},
        {
            "a": {"process": "p1", "client_tags": {"zone": "z1"}},
            "b": {"process": "p2", "client_tags": {"zone": "z1", "rack": "r9"}},
            "c": {"process": "p3", "client_tags": {"zone": "z2"}},
        },
        standby_replicas=1,
        rack_aware_tags=["zone"],
    )
    solution = solve(problem)
    _assert_optimal(problem, StreamsRequest(), solution, _expect(problem))
    assert [t.value for t in solution.tiers] == [[1, 1, 0], [2, 1, 1], 4, [0, 0, 0, 0]]
    active, standby = _tasks_of(solution.assignment, "c")
    assert active | standby == {("s", 0), ("s", 1)}
    # the tier counts what it should: without tags, a layout with one task only in z1 is as good
    untagged = _group(
        {"s": {"tasks": 2, "stateful": True}},
        {m: {"process": p} for m, p in (("a", "p1"), ("b", "p2"), ("c", "p3"))},
        standby_replicas=1,
    )
    layouts = streams_optimum(untagged)
    assert layouts.values == [[1, 1, 0], [2, 1, 1], [0, 0, 0, 0]]
    assert layouts.optimal_count > streams_optimum(problem).optimal_count


def test_a_group_without_tasks_and_more_standbys_than_processes():
    """No task: everyone gets nothing, OPTIMAL.  Two processes and 3 replicas: each stateful task gets
    min(3, 2 - 1) = 1 standby, the unavoidable shortfall 2 per task and no more."""
    empty = _group({}, {"a": {"process": "p1"}, "b": {"process": "p2"}})
    solution = solve(empty)
    _assert_optimal(empty, StreamsRequest(), solution, _expect(empty))
    assert [t.value for t in solution.tiers] == [[0, 0], [0, 0], [0, 0, 0, 0]]
    short = _group(
        {"s": {"tasks": 2, "stateful": True}, "u": {"tasks": 1, "stateful": False}},
        {"a": {"process": "p1"}, "b": {"process": "p1"}, "c": {"process": "p2"}},
        standby_replicas=3,
    )
    solution = solve(short)
    _assert_optimal(short, StreamsRequest(), solution, _expect(short))
    assert standby_shortfall(short, solution.assignment) == unavoidable_standby_shortfall(short) == 4
    # 3 actives over 3 members; 3 + 2 copies over 3 members
    assert [t.value for t in solution.tiers] == [[1, 1, 1], [2, 2, 1], [0, 0, 0, 0]]


def test_a_group_without_members():
    """No member: without tasks the empty assignment is optimal, every tier reported (the brute force's one
    assignment: no counts, no stickiness); with tasks there is no valid assignment, and no answer."""
    empty = _group({}, {})
    solution = solve(empty)
    expected = _expect(empty)
    assert expected.values == [[], [], [0, 0, 0, 0]]
    _assert_optimal(empty, StreamsRequest(), solution, expected)
    assert solution.assignment == StreamsAssignment({})
    orphaned = _group({"s": {"tasks": 1, "stateful": True}}, {})
    assert streams_optimum(orphaned) is None
    solution = solve(orphaned)
    assert solution.status == UNKNOWN and solution.assignment is None and solution.message
    assert not any(t.proven for t in solution.tiers)


# -- medium groups ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_medium_random_groups_are_solved_to_optimality(seed):
    """6 processes, up to 40 tasks (4 subtopologies of up to 10), up to 3 members per process, 0-3 standby
    replicas: OPTIMAL within a generous limit, valid, and no worse than Kafka's port."""
    rng = random.Random(seed)
    problem = StreamsProblem.from_mapping(
        random_streams_scenario(rng, subtopologies=4, max_tasks=10, processes=6, max_members_per_process=3)
    )
    solution = solve(problem, time_limit=120)
    assert solution.status == OPTIMAL, (solution.status, solution.message, solution.stages)
    _assert_valid(problem, solution)
    _assert_no_worse_than_kafka(problem, solution)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_medium_random_groups_with_zones_are_solved_to_optimality(seed):
    """The same groups with a rack-aware tag, ``zone`` (processes p0..p5 in zones z0, z1, z2, z0, z1, z2):
    ``tag-diversity`` a tier, so the harder model; OPTIMAL within a generous limit (seconds each)."""
    rng = random.Random(seed)
    scenario = random_streams_scenario(rng, subtopologies=4, max_tasks=10, processes=6, max_members_per_process=3)
    for member in scenario["members"].values():
        member["client_tags"] = {"zone": f"z{int(member['process'][1:]) % 3}"}
    scenario["rack_aware_tags"] = ["zone"]
    problem = StreamsProblem.from_mapping(scenario)
    solution = solve(problem, time_limit=300)
    assert solution.status == OPTIMAL, (solution.status, solution.message, solution.stages)
    assert solution.objective_order == (ACTIVE_BALANCE, TASK_BALANCE, TAG_DIVERSITY, STICKINESS)
    _assert_valid(problem, solution)
    _assert_no_worse_than_kafka(problem, solution)


def test_a_medium_random_group_is_solved_to_optimality():
    """One medium group in the quick run (the rest are slow): 6 processes, 40 tasks, one standby."""
    rng = random.Random(2026)
    scenario = random_streams_scenario(rng, subtopologies=4, max_tasks=10, processes=6, standby_replicas=1)
    for i, sub in enumerate(scenario["subtopologies"].values()):
        sub["tasks"] = 10
        sub["stateful"] = i % 2 == 0
    problem = StreamsProblem.from_mapping(scenario)
    assert len(problem.tasks) == 40
    solution = solve(problem, time_limit=60)
    assert solution.status == OPTIMAL, (solution.status, solution.message, solution.stages)
    _assert_valid(problem, solution)
    assert _assert_no_worse_than_kafka(problem, solution) >= 1


# -- the answer checks itself (issue 40) ----------------------------------------------------------------


@pytest.mark.parametrize("tier", [ACTIVE_BALANCE, TASK_BALANCE, STICKINESS])
def test_an_answer_that_measures_other_than_proven_is_a_solver_error(monkeypatch, tier):
    """The answer is measured once at the end and each tier compared with what the model proved: a measure
    that disagrees (here made to, one tier at a time) fails the solve with :class:`SolverError`, never
    replaces the proven value."""
    from assignment_oracle.optimal import streams as engine

    problem = _group(
        {"s": {"tasks": 4, "stateful": True}},
        {
            "a": {"process": "p1", "active": {"s": [0, 1, 2, 3]}},
            "b": {"process": "p2", "task_offsets": {"s": {"2": 10, "3": 0}}},
        },
    )
    assert solve(problem).status == OPTIMAL
    honest = engine.measure

    def skewed(problem, assignment):
        m = honest(problem, assignment)
        if tier == STICKINESS:
            return dataclasses.replace(m, actives_kept=m.actives_kept - 1)
        counts = m.active_counts.copy()
        counts[0] += 1  # one member one more (the totals no longer add up: a different sorted vector)
        if tier == ACTIVE_BALANCE:
            return dataclasses.replace(m, active_counts=counts)
        return dataclasses.replace(m, standby_counts=m.standby_counts + (counts - m.active_counts))

    monkeypatch.setattr(engine, "measure", skewed)
    with pytest.raises(SolverError, match=tier):
        solve(problem)


@pytest.mark.slow  # about 6 s: the brute force on 40 tight groups (the tight-group agreement above is quick)
@settings(max_examples=40, deadline=None)
@given(tiny_problems(tags=False, tight=True))
def test_groups_that_cannot_be_perfectly_balanced_equal_the_brute_force(problem):
    """Where the brute force's most balanced task counts are further apart than one (so the levels are
    searched, on the counts model, and pinned in the model): the same optimum, every order of the two
    balance tiers first."""
    expected = _expect(problem)
    loads = expected.values[expected.tiers.index(TASK_BALANCE)]
    assume(loads and max(loads) - min(loads) > 1)
    _assert_optimal(problem, StreamsRequest(), solve(problem), expected)
    flipped = StreamsRequest(objective=(TASK_BALANCE, ACTIVE_BALANCE, TAG_DIVERSITY, STICKINESS))
    _assert_optimal(problem, flipped, solve(problem, flipped), _expect(problem, flipped))
