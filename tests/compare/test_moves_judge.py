"""Cooperative rebalances against the most balanced assignment within their own moves: brute force judges."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.compare.judge.evaluate import evaluate
from assignment_oracle.compare.judge.moves import judge
from assignment_oracle.optimal import solve
from assignment_oracle.optimal.brute_force import move_limited_optimum, previous_owners
from assignment_oracle.problem.model import Assignment


@settings(max_examples=120, deadline=None)
@given(problems(max_topics=3, max_partitions=3, max_members=4, max_assignments=None))
def test_dominated_exactly_when_brute_force_finds_better_within_the_same_moves(problem):
    row = evaluate(problem, "cooperative-sticky")
    assume(row.status == "ok" and row.verdict.owned)
    verdict = row.moves
    assert verdict is not None
    # The assignor's moves, counted again from the scenario's claims.
    owners = previous_owners(problem)
    placed = {(t, p): m for m, ts in row.assignment.members.items() for t, ps in ts.items() for p in ps}
    left: dict[str, int] = {}
    for tp, o in owners.items():
        if placed.get(tp) != o:
            left[o] = left.get(o, 0) + 1
    moved, most_from_one = verdict["moved"], verdict["most_from_one_member"]
    assert moved == sum(left.values()) and most_from_one == max(left.values(), default=0)
    try:
        best = move_limited_optimum(problem, moved, most_from_one, limit=5000)
    except ValueError:
        assume(False)
    loads = tuple(sorted((sum(len(ps) for ps in ts.values()) for ts in row.assignment.members.values()), reverse=True))
    best_loads = verdict["best_sorted_loads"]
    assert tuple(verdict["sorted_loads"]) == loads
    assert (None if best_loads is None else tuple(best_loads), verdict["best_moved"]) == best
    assert verdict["dominated"] == (best < (loads, moved))


def test_only_cooperative_assignors_are_judged_on_their_moves():
    from assignment_oracle.problem import Problem

    problem = Problem.from_mapping(
        {
            "topics": {"a": 6},
            "members": {
                "m1": {"topics": ["a"], "owned": {"a": [0, 1, 2, 3, 4, 5]}, "generation": 1},
                "m2": {"topics": ["a"]},
                "m3": {"topics": ["a"]},
            },
        }
    )
    assert evaluate(problem, "sticky").moves is None
    row = evaluate(problem, "cooperative-sticky")
    assert row.moves is not None and row.moves["moved"] == 4  # (2, 2, 2) needs four of m1's six to move
    assert judge(problem, row.assignment).best_sorted_loads == (2, 2, 2)


@settings(max_examples=120, deadline=None)
@given(problems(max_topics=3, max_partitions=3, max_members=4, max_assignments=None, racks=True), st.data())
def test_any_valid_assignment_against_brute_force_within_its_own_moves(problem, data):
    """A random valid assignment (mostly not within the unlimited optimum's moves, so the move-limited
    optimum is solved), with or without the optimum given (racks and any objective order: the verdict
    is about partition counts and moves alone)."""
    owned: dict[str, list] = {m: [] for m in problem.member_ids}
    for topic in problem.topics:
        subscribers = [problem.member_ids[i] for i in problem.subscribers[topic.name]]
        for p in range(topic.partitions):
            if subscribers:
                owned[data.draw(st.sampled_from(subscribers))].append((topic.name, p))
    assignment = Assignment.from_partitions(owned, problem.member_ids)
    optimum = data.draw(st.sampled_from([None, solve(problem.balance_first_order())]))
    verdict = judge(problem, assignment, optimum=optimum)
    try:
        best = move_limited_optimum(problem, verdict.moved, verdict.most_from_one_member, limit=5000)
    except ValueError:
        assume(False)
    assert verdict.proven and (verdict.best_sorted_loads, verdict.best_moved) == best
    loads = tuple(sorted((len(ps) for ps in owned.values()), reverse=True))
    assert verdict.sorted_loads == loads and verdict.dominated == (best < (loads, verdict.moved))
