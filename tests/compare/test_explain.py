"""Explanations are proofs: applying the moves they give does what they claim."""

from __future__ import annotations

from collections import Counter

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import rebalances, requests

from assignment_oracle.compare.judge.explain import apply_moves, explain
from assignment_oracle.heuristics import ASSIGNORS
from assignment_oracle.optimal import Request, measure, solve
from assignment_oracle.optimal.brute_force import previous_owners, request_optimum
from assignment_oracle.optimal.request import tier_key
from assignment_oracle.problem import Problem
from assignment_oracle.problem.metrics import load_vector, retained, sorted_loads, sum_of_squares
from assignment_oracle.problem.model import BALANCE, Assignment
from assignment_oracle.problem.ownership import violations


def test_invalid_names_the_violations():
    problem = Problem.from_mapping({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}})
    e = explain(problem, Assignment({"a": {"t": (0,)}}))
    assert e.kind == "invalid" and [v.kind for v in e.violations] == ["missing"]
    assert "missing" in e.text()


def test_kip54_example1_round_robin_could_have_kept_two_more():
    """KIP-54 example 1 after C1 leaves: round robin is balanced (4/4) but keeps 3; sticky keeps 5."""
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 2, "t1": 2, "t2": 2, "t3": 2},
            "members": {
                "C0": {"topics": ["t0", "t1", "t2", "t3"], "owned": {"t0": [0], "t1": [1], "t3": [0]}, "generation": 1},
                "C2": {"topics": ["t0", "t1", "t2", "t3"], "owned": {"t1": [0], "t2": [1]}, "generation": 1},
            },
        }
    )
    candidate = ASSIGNORS["roundrobin"].assign(problem)
    e = explain(problem, candidate)
    assert e.kind == "stickiness" and (e.retained, e.optimal_retained) == (3, 5)
    assert {str(s.partition) for s in e.could_have_stayed} == {"t1-1", "t1-0"}
    fixed = apply_moves(candidate, [m for g in e.cycles + e.paths for m in g])
    assert retained(problem, fixed) == 5 and sorted_loads(load_vector(problem, fixed)) == (4, 4)
    assert "could have stayed" in e.text() and e.to_mapping()["kind"] == "stickiness"


def test_a_swap_across_racks_is_explained_as_a_rack_gap():
    """Two racks, each partition's replica on one: crossing both is as balanced as keeping both local."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": {"partitions": 2, "racks": [["a"], ["b"]]}},
            "members": {"x": {"topics": ["t"], "rack": "a"}, "y": {"topics": ["t"], "rack": "b"}},
        }
    )
    candidate = Assignment({"x": {"t": (1,)}, "y": {"t": (0,)}})
    e = explain(problem, candidate)
    assert e.kind == "rack" and (e.cross_rack, e.optimal_cross_rack) == (2, 0)
    assert {(str(c.partition), c.member, c.oracle_member) for c in e.could_be_local} == {
        ("t-0", "y", "x"),
        ("t-1", "x", "y"),
    }
    fixed = apply_moves(candidate, [m for g in e.cycles + e.paths for m in g])
    assert fixed.to_mapping() == {"x": {"t": [0]}, "y": {"t": [1]}}
    assert "could be local" in e.text() and e.to_mapping()["cross_rack"] == 2
    # Without the rack tier the same assignment is optimal.
    assert explain(Problem(problem.topics, problem.members, ("balance", "stickiness")), candidate).kind == "optimal"


def test_judging_balance_first_keeps_the_scenarios_other_tiers():
    """A scenario that leaves rack locality out is not judged on it, whatever its order (balance only moves first)."""
    base = {
        "topics": {"t": {"partitions": 2, "racks": [["a"], ["b"]]}},
        "members": {
            "x": {"topics": ["t"], "rack": "a", "owned": {"t": [1]}, "generation": 1},
            "y": {"topics": ["t"], "rack": "b", "owned": {"t": [0]}, "generation": 1},
        },
    }
    sticky = ASSIGNORS["sticky"]
    for objective, kind in (
        (["stickiness", "balance"], "optimal"),
        (["balance", "stickiness"], "optimal"),
        (["stickiness", "balance", "rack"], "optimal"),
        (["rack", "stickiness", "balance"], "rack"),
    ):
        problem = Problem.from_mapping({**base, "objective": objective})
        judged = problem.balance_first_order()
        assert judged.objective == ("balance", *(t for t in objective if t != "balance"))
        # Keeping both claims puts both partitions outside their racks: a gap only where rack ranks before stickiness.
        assert explain(problem, sticky.assign(problem)).kind == kind, objective


@settings(max_examples=150)
@given(problem=rebalances())
def test_every_explanation_checks_out(problem):
    optimum = solve(problem)
    for name in ("roundrobin", "range", "sticky", "fair"):
        candidate = ASSIGNORS[name].assign(problem)
        e = explain(problem, candidate, optimum=optimum)
        if e.kind == "balance":
            # The chain is legal and strictly improves the sum of squares.
            improved = apply_moves(candidate, e.chain)
            assert violations(problem, improved) == ()
            assert sum_of_squares(load_vector(problem, improved)) < sum_of_squares(load_vector(problem, candidate))
        elif e.kind == "stickiness":
            fixed = apply_moves(candidate, [m for g in e.cycles + e.paths for m in g])
            assert violations(problem, fixed) == ()
            assert sorted_loads(load_vector(problem, fixed)) == tuple(optimum.sorted_loads)
            assert retained(problem, fixed) == optimum.retained
            assert len(e.could_have_stayed) >= optimum.retained - e.retained
            for cycle in e.cycles:
                assert cycle[0].source == cycle[-1].target
        else:
            assert e.kind == "optimal"


# -- any request: join groups, weights, budgets, spread, any order (the general path) -----------------


def _breaks(problem: Problem, request: Request, assignment: Assignment) -> bool:
    """Whether ``assignment`` breaks the request's constraints, computed here from the scenario."""
    if violations(problem, assignment):
        return True
    owner = {(t, p): m for m, topics in assignment.members.items() for t, ps in topics.items() for p in ps}
    counts = problem.partition_counts
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            if len({owner.get((t, p)) for t in group if p < counts[t]}) > 1:
                return True
    previous = previous_owners(problem)
    moved = Counter(m for tp, m in previous.items() if owner.get(tp) != m)
    if request.max_moves is not None and sum(moved.values()) > request.max_moves:
        return True
    return request.max_moves_per_member is not None and max(moved.values(), default=0) > request.max_moves_per_member


@st.composite
def requests_and_assignments(draw):
    """A composed request and any assignment a heuristic might hand back: each partition to a
    subscriber of its topic, often its previous owner, join-group units kept together or not."""
    problem, request = draw(requests())
    assume(len(problem.members) >= 2 and sum(problem.partition_counts.values()) >= 2)
    previous = previous_owners(problem)
    together = draw(st.booleans())
    given: dict[str, dict[str, list[int]]] = {}
    unit_owner: dict[int, str] = {}
    grouped = {t for g in problem.join_groups for t in g}
    for topic in problem.topics:
        subscribers = [problem.member_ids[i] for i in problem.subscribers[topic.name]]
        if not subscribers:
            continue
        for p in range(topic.partitions):
            if together and topic.name in grouped and p in unit_owner and unit_owner[p] in subscribers:
                member = unit_owner[p]
            elif (topic.name, p) in previous and draw(st.integers(0, 2)) == 0:
                member = previous[(topic.name, p)]
            else:
                member = draw(st.sampled_from(subscribers))
            if topic.name in grouped:
                unit_owner.setdefault(p, member)
            given.setdefault(member, {}).setdefault(topic.name, []).append(p)
    return problem, request, Assignment(given)


@settings(max_examples=400)
@given(requests_and_assignments())
def test_any_request_is_explained_with_a_proof(case):
    """The kind agrees with the brute force, and a gap's moves lead to an answer that is valid under
    the request, equal on every tier before the gap and better on it, and optimal."""
    problem, request, assignment = case
    expected = request_optimum(problem, request, limit=100_000)
    e = explain(problem, assignment, request=request)
    order = request.tiers(problem)
    # The general path judges every tier (a balance-first count request keeps the flow's explanation).
    assert e.verdict is None or list(e.verdict.objective_order) == list(order)
    if expected is None or _breaks(problem, request, assignment):
        assert e.kind == "invalid" and e.exit_code == 3
        return
    mine = [measure(problem, assignment).value(t, request.balance) for t in order]
    if mine == expected:
        assert e.kind == "optimal" and e.exit_code == 0
        return
    assert e.kind in order and e.exit_code == 1
    at = order.index(e.kind)
    assert mine[:at] == expected[:at] and mine[at] != expected[at]  # the first tier that differs
    assert e.kind in e.text()
    if e.chain:  # the flow's improving chain: it lowers the loads' spread, whatever the rest
        better = apply_moves(assignment, e.chain)
        assert tier_key(BALANCE, measure(problem, better).value(BALANCE)) < tier_key(BALANCE, mine[0])
        return
    fixed = apply_moves(assignment, [m for g in e.paths + e.cycles for m in g])
    assert not _breaks(problem, request, fixed)
    assert [measure(problem, fixed).value(t, request.balance) for t in order] == expected


def test_join_groups_and_weights_are_explained_not_refused():
    """Co-partitioned orders+payments and a heavy audit partition: sticky keeps the units whole but
    leaves the newcomer light; the explanation names the balance tier and the moves that fix it."""
    problem = Problem.from_mapping(
        {
            "topics": {"orders": 2, "payments": 2, "audit": 2},
            "join_groups": [["orders", "payments"]],
            "weights": {"audit": [5, 1]},
            "members": {
                "a": {
                    "topics": ["orders", "payments", "audit"],
                    "owned": {"orders": [0, 1], "payments": [0, 1]},
                    "generation": 1,
                },
                "b": {"topics": ["orders", "payments", "audit"], "owned": {"audit": [0, 1]}, "generation": 1},
            },
        }
    )
    # a holds both units (weight 4), b the audit partitions (weight 6): moving unit 1 to b would give
    # 2 and 8; moving audit-1 to a gives 5 and 5, the optimum (balance first).
    e = explain(problem, Assignment({"a": {"orders": (0, 1), "payments": (0, 1)}, "b": {"audit": (0, 1)}}))
    assert e.kind == "balance" and e.exit_code == 1
    assert [str(m) for g in e.paths + e.cycles for m in g] == ["audit-1: b → a"]
    balance = e.to_mapping()["judged"]["tiers"][0]
    assert {k: balance[k] for k in ("tier", "value", "optimum", "optimum_proven", "comparison")} == {
        "tier": "balance",
        "value": [6, 4],
        "optimum": [5, 5],
        "optimum_proven": True,
        "comparison": "worse",
    }
