"""KIP-315's selection rules 4.1-4.3 and the epoch rule, worked by hand."""

from __future__ import annotations

from assignment_oracle.heuristics import stream_join_sticky
from assignment_oracle.problem import Problem

JOIN = ["clicks", "views"]


def numbers(problem: Problem) -> dict[str, list[int]]:
    got = stream_join_sticky.assign(problem).to_mapping(problem.member_ids)
    assert all(ts.get("clicks", []) == ts.get("views", []) for ts in got.values())  # co-partitioned
    return {m: ts.get("clicks", []) for m, ts in got.items()}


def group(n: int, members: dict) -> Problem:
    return Problem.from_mapping(
        {
            "topics": {"clicks": n, "views": n},
            "members": {
                m: {"topics": JOIN, **({"owned": {"clicks": ps, "views": ps}, "generation": g} if ps else {})}
                for m, (ps, g) in members.items()
            },
        }
    )


def test_fair_steal_starts_with_the_longest_previous_list():
    """n=6, three members, two numbers each.  Round 1: A reclaims 0, B its 5;
    C has nothing and nothing is unowned, so it steals from A (more unpicked
    claims than picks left) A's largest, 4.  Round 2: A reclaims 1; B and C
    steal A's remaining 3 and 2.  A and B keep everything they could."""
    got = numbers(group(6, {"A": ([0, 1, 2, 3, 4], 1), "B": ([5], 1), "C": ([], None)}))
    assert got == {"A": [0, 1], "B": [3, 5], "C": [2, 4]}


def test_unowned_before_stealing():
    """Rule 4.2 before 4.3: C takes the unowned 3 rather than stealing."""
    got = numbers(group(4, {"A": ([0, 1], 1), "B": ([2], 1), "C": ([], None)}))
    assert got["C"] == [3] and got["A"][:1] == [0]


def test_the_higher_epoch_wins_a_contested_number():
    """A zombie (epoch 1) and the current owner (epoch 2) both claim 0."""
    got = numbers(group(2, {"A": ([0], 1), "B": ([0], 2)}))
    assert got == {"A": [1], "B": [0]}


def test_the_extra_number_goes_to_the_longest_previous_list():
    """n=5, two members: B owned three, so B gets the ceiling and keeps them all."""
    got = numbers(group(5, {"A": ([0, 1], 1), "B": ([2, 3, 4], 1)}))
    assert got == {"A": [0, 1], "B": [2, 3, 4]}
