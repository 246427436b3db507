"""Explanations are proofs: applying the moves they give does what they claim."""

from __future__ import annotations

from hypothesis import given, settings
from strategies import rebalances

from assignment_oracle.compare.judge.explain import apply_moves, explain
from assignment_oracle.heuristics import ASSIGNORS
from assignment_oracle.optimal import solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.metrics import load_vector, retained, sorted_loads, sum_of_squares
from assignment_oracle.problem.model import Assignment
from assignment_oracle.problem.ownership import violations


def test_invalid_names_the_violations():
    problem = Problem.from_mapping({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}})
    e = explain(problem, Assignment({"a": {"t": (0,)}}))
    assert e.kind == "invalid" and [v.kind for v in e.violations] == ["missing"]
    assert "missing" in e.text()


def test_kip54_example1_round_robin_could_have_kept_two_more():
    """KIP-54 example 1 after C1 leaves: round robin is balanced (4/4) but keeps 3; sticky keeps 5."""
    problem = Problem.from_mapping({"topics": {"t0": 2, "t1": 2, "t2": 2, "t3": 2}, "members": {
        "C0": {"topics": ["t0", "t1", "t2", "t3"], "owned": {"t0": [0], "t1": [1], "t3": [0]}, "generation": 1},
        "C2": {"topics": ["t0", "t1", "t2", "t3"], "owned": {"t1": [0], "t2": [1]}, "generation": 1}}})
    candidate = ASSIGNORS["roundrobin"].assign(problem)
    e = explain(problem, candidate)
    assert e.kind == "stickiness" and (e.retained, e.optimal_retained) == (3, 5)
    assert {str(s.partition) for s in e.could_have_stayed} == {"t1-1", "t1-0"}
    fixed = apply_moves(candidate, [m for g in e.cycles + e.paths for m in g])
    assert retained(problem, fixed) == 5 and sorted_loads(load_vector(problem, fixed)) == (4, 4)
    assert "could have stayed" in e.text() and e.to_mapping()["kind"] == "stickiness"


def test_a_swap_across_racks_is_explained_as_a_rack_gap():
    """Two racks, each partition's replica on one: crossing both is as balanced as keeping both local."""
    problem = Problem.from_mapping({"topics": {"t": {"partitions": 2, "racks": [["a"], ["b"]]}}, "members": {
        "x": {"topics": ["t"], "rack": "a"}, "y": {"topics": ["t"], "rack": "b"}}})
    candidate = Assignment({"x": {"t": (1,)}, "y": {"t": (0,)}})
    e = explain(problem, candidate)
    assert e.kind == "rack" and (e.cross_rack, e.optimal_cross_rack) == (2, 0)
    assert {(str(c.partition), c.member, c.oracle_member) for c in e.could_be_local} == {("t-0", "y", "x"),
                                                                                         ("t-1", "x", "y")}
    fixed = apply_moves(candidate, [m for g in e.cycles + e.paths for m in g])
    assert fixed.to_mapping() == {"x": {"t": [0]}, "y": {"t": [1]}}
    assert "could be local" in e.text() and e.to_mapping()["cross_rack"] == 2
    # Without the rack tier the same assignment is optimal.
    assert explain(Problem(problem.topics, problem.members, ("balance", "stickiness")), candidate).kind == "optimal"


def test_judging_balance_first_keeps_the_scenarios_other_tiers():
    """A scenario that leaves rack locality out is not judged on it, whatever its order (balance only moves first)."""
    base = {"topics": {"t": {"partitions": 2, "racks": [["a"], ["b"]]}},
            "members": {"x": {"topics": ["t"], "rack": "a", "owned": {"t": [1]}, "generation": 1},
                        "y": {"topics": ["t"], "rack": "b", "owned": {"t": [0]}, "generation": 1}}}
    sticky = ASSIGNORS["sticky"]
    for objective, kind in ((["stickiness", "balance"], "optimal"), (["balance", "stickiness"], "optimal"),
                            (["stickiness", "balance", "rack"], "optimal"), (["rack", "stickiness", "balance"], "rack")):
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
