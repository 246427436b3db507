"""The units' min-cost flow for join groups (optimal.units_flow): exact where it applies, chosen exactly
there, certified.

Expected values come from :func:`optimal.brute_force.request_optimum` (every assignment of the
scenario's units, owners read off the claims by the rule) on tiny groups, from the staged CP-SAT model
(``method="cpsat-staged"``) on medium ones, and from the scenario itself for when the engine applies
(units and owners built here, not by the module).
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import requests, scenarios

from assignment_oracle.optimal import (
    INFEASIBLE,
    OPTIMAL,
    Request,
    SolverError,
    UnsupportedRequest,
    choose,
    measure,
    solve,
    units_flow,
)
from assignment_oracle.optimal.brute_force import previous_owners, request_optimum
from assignment_oracle.optimal.request import BALANCE_DEFINITIONS, better
from assignment_oracle.problem.model import SPREAD, Assignment, Problem

#: Every order the engine takes: balance and stickiness, with rack anywhere or without it.
ORDERS = tuple(itertools.permutations(("balance", "rack", "stickiness"))) + (
    ("balance", "stickiness"),
    ("stickiness", "balance"),
)


def _units(problem: Problem) -> tuple[list[list[tuple[str, int]]], int]:
    """The scenario's units, as brute force builds them, and how many no single member can take."""
    subscribed = {t.name: [m.member_id for m in problem.members if t.name in m.topics] for t in problem.topics}
    grouped = {t for g in problem.join_groups for t in g}
    counts = problem.partition_counts
    units = [
        [(t.name, p)]
        for t in problem.topics
        if t.name not in grouped and subscribed[t.name]
        for p in range(t.partitions)
    ]
    stranded = 0
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            topics = [t for t in group if p < counts[t]]
            if not any(subscribed[t] for t in topics):
                continue
            if not set.intersection(*(set(subscribed[t]) for t in topics)):
                stranded += 1
                continue
            units.append([(t, p) for t in topics])
    return units, stranded


def _shaped(problem: Problem) -> bool:
    """Every unit one size, whatever its partitions' previous owners (units no member can take are left
    out: the problem is infeasible whichever engine answers)."""
    units, _ = _units(problem)
    return len({len(u) for u in units}) <= 1


def _owners(problem: Problem) -> int:
    """The most distinct previous owners (by the rule) any unit has."""
    units, _ = _units(problem)
    owners = previous_owners(problem)
    return max((len({owners[tp] for tp in u if tp in owners}) for u in units), default=0)


def _engine_applies(problem: Problem, request: Request) -> bool:
    tiers = request.tiers(problem)
    return (
        bool(problem.join_groups)
        and not problem.weights
        and not request.limited
        and SPREAD not in tiers
        and _shaped(problem)
    )


@st.composite
def join_groups(draw, *, max_members: int = 3, max_partitions: int = 3, spread_claims: bool = False):
    """One or two join groups of two or three topics (one size of unit, unless drawn ragged or with a
    free topic), members subscribing to whole groups or part of one, and claims per unit: one member
    claims some of a unit's partitions, sometimes a second member one more, or (``spread``, drawn per
    unit; every unit with ``spread_claims``) each partition its own claimant, at generations that may
    tie or supersede.  Mostly with racks: members in one of three racks or none, partitions with up
    to two replica racks (KIP-881)."""
    n = draw(st.integers(1, max_members))
    ids = [f"c{i}" for i in range(n)]
    width = draw(st.integers(2, 3))
    groups = [[f"g{g}{chr(97 + k)}" for k in range(width)] for g in range(draw(st.integers(1, 2)))]
    partitions = draw(st.integers(1, max_partitions))
    topics = {t: partitions for group in groups for t in group}
    if partitions > 1 and draw(st.integers(0, 3)) == 0:  # ragged: a group's last topic has fewer partitions
        topics[groups[0][-1]] = draw(st.integers(1, partitions - 1))
    free = draw(st.integers(0, 3)) == 0
    if free:
        topics["free"] = draw(st.integers(1, 2))
    subscriptions = {}
    for m in ids:
        chosen: set[str] = set()
        for group in groups:
            if draw(st.integers(0, 3)):
                chosen |= set(group)
            elif draw(st.integers(0, 2)) == 0:  # part of the group only
                chosen.add(group[0])
        if free and draw(st.booleans()):
            chosen.add("free")
        subscriptions[m] = sorted(chosen)
    owned: dict[str, dict[str, list[int]]] = {m: {} for m in ids}
    for group in groups:
        for p in range(partitions):
            owner = draw(st.sampled_from([None, *ids]))
            spread = n > 1 and (spread_claims or draw(st.integers(0, 2)) == 0)  # claims spread across members
            for t in group:
                claimant = draw(st.sampled_from([None, *ids])) if spread else owner
                if claimant is not None and p < topics[t] and draw(st.integers(0, 3)):
                    owned[claimant].setdefault(t, []).append(p)
            if n > 1 and draw(st.integers(0, 4)) == 0:  # a second claimant on one partition
                other = draw(st.sampled_from(ids))
                t = draw(st.sampled_from(group))
                if p < topics[t]:
                    owned[other].setdefault(t, []).append(p)
    generation = {m: draw(st.sampled_from([1, 1, 2, None])) for m in ids}
    rack = {m: None for m in ids}
    described: dict[str, object] = dict(topics)
    if draw(st.integers(0, 3)):
        rack = {m: draw(st.sampled_from([None, "a", "b", "c"])) for m in ids}
        for t, count in topics.items():
            if draw(st.integers(0, 3)):
                replicas = st.lists(st.sampled_from("abc"), max_size=2, unique=True)
                described[t] = {"partitions": count, "racks": [draw(replicas) for _ in range(count)]}
    return Problem.from_mapping(
        {
            "topics": described,
            "join_groups": groups,
            "members": {
                m: {
                    "topics": subscriptions[m],
                    "owned": {t: sorted(set(ps)) for t, ps in owned[m].items()},
                    **({"generation": generation[m]} if generation[m] is not None else {}),
                    **({"rack": rack[m]} if rack[m] is not None else {}),
                }
                for m in ids
            },
        }
    )


def _optimum(problem: Problem, request: Request) -> list | None:
    try:
        return request_optimum(problem, request, limit=5_000)
    except ValueError:  # too many assignments to enumerate
        assume(False)
        raise


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(join_groups(), st.sampled_from(ORDERS), st.sampled_from(BALANCE_DEFINITIONS))
def test_the_flow_agrees_with_brute_force_wherever_it_applies(problem, order, definition):
    request = Request(objective=order, balance=definition)
    assume(_engine_applies(problem, request))
    expected = _optimum(problem, request)
    solution = solve(problem, request)
    assert solution.method == "units-flow"
    if expected is None:
        assert solution.status == INFEASIBLE and solution.assignment is None
        assert "no member subscribes to every topic of the unit" in solution.message
        return
    assert solution.status == OPTIMAL, solution.message
    assert [t.value for t in solution.tiers] == expected
    assert all(t.proven and t.bound == t.value for t in solution.tiers)
    certificate = units_flow.UnitPrices.from_mapping(solution.stages[0]["certificate"])
    assert units_flow.verify(problem, solution.assignment, certificate, request) == ()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(join_groups(spread_claims=True), st.sampled_from(ORDERS), st.sampled_from(BALANCE_DEFINITIONS))
def test_the_flow_agrees_with_brute_force_on_units_with_several_owners(problem, order, definition):
    """The same, only where some unit's partitions resolve to two or more members (each keeps what it
    claimed: the stickiness term per unit and member, and stickiness first ties the owners that keep
    most of a unit)."""
    request = Request(objective=order, balance=definition)
    assume(_engine_applies(problem, request) and _owners(problem) >= 2)
    expected = _optimum(problem, request)
    solution = solve(problem, request)
    assert solution.method == "units-flow"
    if expected is None:
        assert solution.status == INFEASIBLE
        return
    assert solution.status == OPTIMAL, solution.message
    assert [t.value for t in solution.tiers] == expected
    certificate = units_flow.UnitPrices.from_mapping(solution.stages[0]["certificate"])
    assert units_flow.verify(problem, solution.assignment, certificate, request) == ()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(join_groups(), st.sampled_from(ORDERS), st.randoms(use_true_random=False))
def test_the_certificate_rejects_every_worse_assignment(problem, order, rng):
    """Prices that prove the optimum prove nothing worse: a random co-partitioned assignment that brute
    force ranks below the optimum does not verify with them."""
    request = Request(objective=order)
    assume(_engine_applies(problem, request))
    expected = _optimum(problem, request)
    assume(expected is not None)
    solution = solve(problem, request)
    certificate = units_flow.UnitPrices.from_mapping(solution.stages[0]["certificate"])
    units, _ = _units(problem)
    given: dict[str, list[tuple[str, int]]] = {m: [] for m in problem.member_ids}
    for unit in units:
        topics = {t for t, _ in unit}
        given[rng.choice([m.member_id for m in problem.members if topics <= m.topics])] += unit
    other = Assignment.from_partitions(given, problem.member_ids)
    tiers = request.tiers(problem)
    measures = measure(problem, other)
    values = [measures.value(t) for t in tiers]
    verdict = units_flow.verify(problem, other, certificate, request)
    if better(tiers, expected, values) < 0:
        assert verdict != ()
    else:  # as good: another optimum, which the same prices may or may not prove
        assert values == expected


@settings(max_examples=200, deadline=None)
@given(st.one_of(join_groups(), scenarios("join-groups", max_members=4, max_partitions=3)), st.data())
def test_auto_chooses_the_flow_exactly_when_the_units_have_its_shape(problem, data):
    order = data.draw(st.sampled_from(ORDERS + (("balance", "spread", "stickiness"),)))
    limited = data.draw(st.sampled_from([None, None, 2]))
    request = Request(objective=order, max_moves=limited)
    expected = "units-flow" if _engine_applies(problem, request) else "cpsat-staged"
    assert choose(problem, request).name == expected


@settings(max_examples=100, deadline=None)
@given(requests())
def test_requests_with_racks_weights_and_budgets_choose_by_the_same_rule(case):
    problem, request = case
    assume(problem.join_groups)
    chosen = choose(problem, request).name
    assert chosen == ("units-flow" if _engine_applies(problem, request) else "cpsat-staged")


def _medium(seed: int, members: int = 12, partitions: int = 24, spread: bool = False) -> Problem:
    """Two join groups of three topics, most members on both, owners per unit (``spread``: per
    partition, so a unit has up to three) from a previous generation of which a quarter left, some
    claims on a unit's partitions missing; members in three racks, each partition with two replica
    racks."""
    rng = random.Random(seed)
    groups = [["orders", "payments", "refunds"], ["clicks", "impressions", "views"]]
    ids = [f"m{i:02d}" for i in range(members)]
    before = ids[: members * 3 // 4] + [f"gone{i}" for i in range(members // 4)]
    owned: dict[str, dict[str, list[int]]] = {m: {} for m in before}
    for group in groups:
        for p in range(partitions):
            owner = rng.choice(before)
            for t in group:
                if rng.random() < 0.9:
                    owned[rng.choice(before) if spread else owner].setdefault(t, []).append(p)
    subscriptions = {m: [t for g in groups if rng.random() < 0.8 for t in g] or groups[0] for m in ids}
    racks = "abc"
    return Problem.from_mapping(
        {
            "topics": {
                t: {"partitions": partitions, "racks": [rng.sample(racks, 2) for _ in range(partitions)]}
                for g in groups
                for t in g
            },
            "join_groups": groups,
            "members": {
                m: {"topics": subscriptions[m], "owned": owned.get(m, {}), "generation": 3, "rack": racks[i % 3]}
                for i, m in enumerate(ids)
            },
        }
    )


@pytest.mark.parametrize("seed", [0, *(pytest.param(i, marks=pytest.mark.slow) for i in (1, 2, 3))])
@pytest.mark.parametrize(
    "order",
    [
        ("balance", "rack", "stickiness"),
        ("balance", "stickiness", "rack"),
        ("rack", "balance", "stickiness"),
        ("stickiness", "balance"),
    ],
)
@pytest.mark.parametrize("spread", [False, True], ids=["one owner per unit", "owners per partition"])
def test_the_flow_agrees_with_the_staged_model_on_medium_groups(seed, order, spread):
    problem, request = _medium(seed, spread=spread), Request(objective=order)
    flow, staged = solve(problem, request), solve(problem, request, method="cpsat-staged")
    assert flow.method == "units-flow" and staged.status == flow.status == OPTIMAL
    assert [t.value for t in flow.tiers] == [t.value for t in staged.tiers]
    assert flow.retained == staged.retained > 0
    certificate = units_flow.UnitPrices.from_mapping(flow.stages[0]["certificate"])
    assert units_flow.verify(problem, flow.assignment, certificate, request) == ()


def _two_owners() -> Problem:
    """t0-0 and t1-0 form a unit; C0 owned t0-0 and C1 t1-0 (one partition each); C0 owned both
    partitions of unit 1."""
    return Problem.from_mapping(
        {
            "topics": {"t0": 2, "t1": 2},
            "join_groups": [["t0", "t1"]],
            "members": {
                "C0": {"topics": ["t0", "t1"], "owned": {"t0": [0, 1], "t1": [1]}, "generation": 1},
                "C1": {"topics": ["t0", "t1"], "owned": {"t1": [0]}, "generation": 1},
            },
        }
    )


@pytest.mark.parametrize("order", [("balance", "rack", "stickiness"), ("stickiness", "balance")])
def test_a_unit_with_two_owners_is_the_flows(order):
    """Unit 1 is C0's (2 partitions kept there), unit 0 keeps one partition with either owner: C0
    keeps unit 1, C1 takes unit 0 (3 kept).  Stickiness first: unit 1 is fixed to C0, unit 0 may go
    to either of its tied owners, and balance sends it to C1."""
    problem, request = _two_owners(), Request(objective=order)
    assert units_flow.applies(problem)
    assert choose(problem, request).name == "units-flow"
    solution = solve(problem, request)
    assert solution.method == "units-flow" and solution.status == OPTIMAL
    assert solution.sorted_loads == (2, 2) and solution.retained == 3
    assert solution.assignment.members["C1"] == {"t0": (0,), "t1": (0,)}
    assert [t.value for t in solution.tiers] == request_optimum(problem, request)
    certificate = units_flow.UnitPrices.from_mapping(solution.stages[0]["certificate"])
    assert units_flow.verify(problem, solution.assignment, certificate, request) == ()
    swapped = Assignment({"C0": {"t0": [0], "t1": [0]}, "C1": {"t0": [1], "t1": [1]}})  # keeps 1
    assert units_flow.verify(problem, swapped, certificate, request)


def test_units_of_different_sizes_go_to_the_staged_model():
    """t1 has one partition, t0 two: units of 2 and 1 partitions, not the flow's shape."""
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 2, "t1": 1},
            "join_groups": [["t0", "t1"]],
            "members": {"C0": {"topics": ["t0", "t1"]}, "C1": {"topics": ["t0", "t1"]}},
        }
    )
    assert not units_flow.applies(problem)
    solution = solve(problem)
    assert solution.method == "cpsat-staged" and solution.status == OPTIMAL
    assert solution.sorted_loads == (2, 1)
    with pytest.raises(UnsupportedRequest, match="method units-flow cannot express .*units of mixed sizes"):
        solve(problem, method="units-flow")


def _kip315_rejoin() -> Problem:
    """KIP-315's stream join: clicks and impressions co-partitioned, 3 partitions each.  C0 owned all
    three units, but its claim on impressions-1 is gone; C1 joins."""
    both = ["clicks", "impressions"]
    return Problem.from_mapping(
        {
            "topics": {"clicks": 3, "impressions": 3},
            "join_groups": [both],
            "members": {
                "C0": {"topics": both, "owned": {"clicks": [0, 1, 2], "impressions": [0, 2]}, "generation": 1},
                "C1": {"topics": both},
            },
        }
    )


def test_worked_example_the_unit_with_fewer_claims_moves():
    """Two units each (loads 4 and 2); C0 keeps units 0 and 2 (4 partitions), not unit 1 (1 partition)."""
    problem = _kip315_rejoin()
    solution = solve(problem)
    assert solution.method == "units-flow" and solution.status == OPTIMAL
    assert solution.assignment.members["C1"] == {"clicks": (1,), "impressions": (1,)}
    assert [t.value for t in solution.tiers] == [[4, 2], 0, 4]
    assert [t.how for t in solution.tiers] == ["unit-prices", "bound", "unit-prices"]


def test_verify_names_what_is_wrong():
    problem = _kip315_rejoin()
    solution = solve(problem)
    certificate = units_flow.UnitPrices.from_mapping(solution.stages[0]["certificate"])
    split = Assignment({"C0": {"clicks": [0, 1, 2], "impressions": [0, 2]}, "C1": {"impressions": [1]}})
    assert units_flow.verify(problem, split, certificate) == ("the unit of clicks-1 is split between members",)
    worse = Assignment({"C0": {"clicks": [0, 1], "impressions": [0, 1]}, "C1": {"clicks": [2], "impressions": [2]}})
    assert units_flow.verify(problem, worse, certificate)  # keeps 3, not 4
    off = units_flow.UnitPrices(certificate.balance_weight + 1, 1, certificate.prices)
    assert "are not this problem's" in units_flow.verify(problem, solution.assignment, off)[0]


def test_an_answer_that_does_not_certify_is_a_solver_error(monkeypatch):
    """Every unit dealt to C0 is valid but not most balanced: the engine refuses it, never returns it."""
    monkeypatch.setattr(units_flow, "_deal", lambda units, plan, n, flow: units.group * 0)
    with pytest.raises(SolverError, match="units-flow"):
        solve(_kip315_rejoin())


def test_a_unit_nobody_can_take_is_infeasible_as_in_the_staged_model():
    problem = Problem.from_mapping(
        {
            "topics": {"a": 2, "b": 2},
            "join_groups": [["a", "b"]],
            "members": {"C0": {"topics": ["a"]}, "C1": {"topics": ["b"]}},
        }
    )
    flow, staged = solve(problem), solve(problem, method="cpsat-staged")
    assert flow.method == "units-flow" and flow.status == staged.status == INFEASIBLE
    assert flow.message == staged.message


def test_the_stream_join_at_scale_is_the_flows_and_certified():
    """4 topics x 1,000 partitions in one join group, 40 members, a co-partitioned previous generation
    with 8 members gone: every unit back to its owner where balance allows."""
    rng = random.Random(0)
    topics = [f"t{i}" for i in range(4)]
    before = [f"m{i:02d}" for i in range(40)]
    owned: dict[str, dict[str, list[int]]] = {m: {t: [] for t in topics} for m in before}
    for p in range(1000):
        owner = rng.choice(before)
        for t in topics:
            owned[owner][t].append(p)
    now = before[8:] + [f"new{i}" for i in range(8)]
    problem = Problem.from_mapping(
        {
            "topics": dict.fromkeys(topics, 1000),
            "join_groups": [topics],
            "members": {m: {"topics": topics, "owned": owned.get(m, {}), "generation": 1} for m in now},
        }
    )
    solution = solve(problem)
    assert solution.method == "units-flow" and solution.status == OPTIMAL
    assert solution.sorted_loads == (100,) * 40
    certificate = units_flow.UnitPrices.from_mapping(solution.stages[0]["certificate"])
    assert units_flow.verify(problem, solution.assignment, certificate) == ()
    # Each remaining member keeps min(its units, 25): nothing more can stay at 25 units each.
    kept_units = sum(min(sum(1 for p in owned[m]["t0"]), 25) for m in before[8:])
    assert solution.retained == 4 * kept_units


def test_subscriptions_that_force_a_member_above_the_average_is_solved_over_every_level():
    """Only C0 takes the six units of group a; group b's two units go to anyone.  The first ceiling
    on the levels (a little over the average, 8 units over 3 members) leaves no flow; every level is
    built then, and C0 gets its six."""
    a, b = ["a1", "a2"], ["b1", "b2"]
    problem = Problem.from_mapping(
        {
            "topics": {"a1": 6, "a2": 6, "b1": 2, "b2": 2},
            "join_groups": [a, b],
            "members": {"C0": {"topics": a + b}, "C1": {"topics": b}, "C2": {"topics": b}},
        }
    )
    flow, staged = solve(problem), solve(problem, method="cpsat-staged")
    assert flow.method == "units-flow" and flow.stats["every_level"] == 1
    assert flow.sorted_loads == staged.sorted_loads == (12, 2, 2)


def test_the_module_docstring_example_runs():
    import doctest

    assert doctest.testmod(units_flow).failed == 0


@pytest.mark.parametrize(
    "members",
    [
        {},
        {"C0": {"topics": []}},
        {"C0": {"topics": ["a", "b"], "owned": {"a": [1]}, "generation": 1}},
    ],
    ids=["no members", "nobody subscribes", "one member"],
)
@pytest.mark.parametrize("order", [("balance", "rack", "stickiness"), ("stickiness", "balance")])
def test_empty_and_single_member_groups(members, order):
    problem = Problem.from_mapping({"topics": {"a": 2, "b": 2}, "join_groups": [["a", "b"]], "members": members})
    request = Request(objective=order)
    solution = solve(problem, request)
    assert solution.method == "units-flow" and solution.status == OPTIMAL
    assert [t.value for t in solution.tiers] == request_optimum(problem, request)


def test_worked_example_rack_then_stickiness_or_stickiness_then_rack():
    """Partition 0 of both topics has its replicas on rack a, partition 1 on rack b; C0 sits in a, C1 in
    b, and C0 owned unit 1.  Balance gives one unit each.  Rack before stickiness: both local, nothing
    kept.  Stickiness before rack: C0 keeps unit 1 (2 partitions) and both units are read across
    racks (4 partitions)."""
    both = ["clicks", "impressions"]
    replicas = {"partitions": 2, "racks": [["a"], ["b"]]}
    problem = Problem.from_mapping(
        {
            "topics": {"clicks": replicas, "impressions": replicas},
            "join_groups": [both],
            "members": {
                "C0": {"topics": both, "rack": "a", "owned": {"clicks": [1], "impressions": [1]}, "generation": 1},
                "C1": {"topics": both, "rack": "b"},
            },
        }
    )
    local = solve(problem, Request(objective=("balance", "rack", "stickiness")))
    sticky = solve(problem, Request(objective=("balance", "stickiness", "rack")))
    assert local.method == sticky.method == "units-flow"
    assert [t.value for t in local.tiers] == [[2, 2], 0, 0]
    assert [t.value for t in sticky.tiers] == [[2, 2], 2, 4]
    assert sticky.assignment.members["C0"] == {"clicks": (1,), "impressions": (1,)}
