"""KIP-429's two phases: nothing is owned twice, and moves wait one rebalance."""

from __future__ import annotations

from hypothesis import given, settings

from compare.guarantees import check_guarantee
from heuristics import cooperative_sticky, sticky
from problem import Problem
from problem.claims import resolve_claims
from problem.ownership import violations
from strategies import rebalances


def owned_by(problem: Problem) -> dict[str, set[tuple[str, int]]]:
    """Resolved previous owner -> its partitions (independent of the assignor)."""
    owner = resolve_claims(problem).previous_owner
    out: dict[str, set[tuple[str, int]]] = {m: set() for m in problem.member_ids}
    for topic, array in owner.items():
        for p, m in enumerate(array.tolist()):
            if m >= 0:
                out[problem.member_ids[m]].add((topic, p))
    return out


def partitions(assignment, member) -> set[tuple[str, int]]:
    return {(tp.topic, tp.partition) for tp in assignment.partitions_of(member)}


@settings(max_examples=200)
@given(problem=rebalances())
def test_first_phase_never_gives_away_what_another_member_owns(problem):
    result = cooperative_sticky.rebalance(problem)
    owned = owned_by(problem)
    for member in problem.member_ids:
        mine = partitions(result.first, member)
        others = set().union(*(owned[m] for m in problem.member_ids if m != member)) if len(owned) > 1 else set()
        assert not mine & others
        # What a member revokes is exactly what it owned and does not keep.
        assert partitions(result.revoked, member) == owned[member] - mine
    if result.revoked.members:
        assert result.rebalances >= 2  # a follow-up rebalance hands revoked partitions over
    else:
        assert result.rebalances == 1 and result.first == result.final
    assert violations(problem, result.final) == ()
    assert check_guarantee("kafka-balance", problem, result.final).kept


def test_a_joining_member_waits_for_the_follow_up_rebalance():
    """The KIP-429 scenario: A and B consume, C joins; only the partition that
    moves stops, for one rebalance."""
    problem = Problem.from_mapping({"topics": {"t": 4}, "members": {
        "A": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 5},
        "B": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 5},
        "C": {"topics": ["t"]}}})
    result = cooperative_sticky.rebalance(problem)
    assert result.rebalances == 2
    assert result.first.to_mapping(problem.member_ids)["C"] == {}
    moved = {(tp.topic, tp.partition) for m in "AB" for tp in result.revoked.partitions_of(m)}
    assert len(moved) == 1
    assert partitions(result.final, "C") == moved
    assert result.final == sticky.assign(problem)  # the eager target, reached in two steps


def test_nothing_to_move_is_one_rebalance():
    problem = Problem.from_mapping({"topics": {"t": 2}, "members": {
        "A": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
        "B": {"topics": ["t"], "owned": {"t": [1]}, "generation": 1}}})
    result = cooperative_sticky.rebalance(problem)
    assert result.rebalances == 1 and result.first == result.final and not result.revoked.members
