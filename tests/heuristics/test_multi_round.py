"""Multi-round: each round's result is the next round's owned partitions.

Members join and leave between rounds; every member that stays claims what
it got, at the next generation, exactly as Kafka's protocol feeds user data
(or ``ownedPartitions``) back.  On identical subscriptions the sticky
assignors must keep everything the oracle says is keepable: their retained
count equals the optimum's (balance first, then stickiness).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_profile import scaled

from assignment_oracle.compare.judge.guarantees import check_run
from assignment_oracle.heuristics import ASSIGNORS, run
from assignment_oracle.optimal import solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.metrics import retained

STICKY = ["sticky", "cooperative-sticky", "constrained-sticky"]


@st.composite
def histories(draw, identical: bool):
    """Topics, the first members, and per round the members that leave and join."""
    topics = {f"t{i}": draw(st.integers(1, 6)) for i in range(draw(st.integers(1, 3)))}
    names = sorted(topics)

    def subscription():
        if identical:
            return names
        return draw(st.lists(st.sampled_from(names), min_size=1, unique=True))

    first = {f"m{i}": subscription() for i in range(draw(st.integers(1, 5)))}
    rounds = []
    for r in range(draw(st.integers(1, 4))):
        leave = draw(st.integers(0, 2))
        join = {f"r{r}j{i}": subscription() for i in range(draw(st.integers(0, 2)))}
        rounds.append((leave, join))
    return topics, first, rounds


def play(name: str, topics, first, rounds):
    """Yield each round's run (problem, assignment, phases), feeding results back with generations."""
    subscriptions = dict(first)
    owned: dict[str, dict] = {}
    generation = 0
    for r in range(len(rounds) + 1):
        members = {}
        for m, subscribed in subscriptions.items():
            entry = {"topics": subscribed}
            if owned.get(m):
                entry["owned"] = owned[m]
                entry["generation"] = generation
            members[m] = entry
        problem = Problem.from_mapping({"topics": topics, "members": members})
        result = run(name, problem)
        yield result
        owned = {m: dict(ts) for m, ts in result.assignment.to_mapping().items()}
        generation += 1
        if r < len(rounds):
            leave, join = rounds[r]
            for m in sorted(subscriptions)[: min(leave, len(subscriptions) - 1)]:
                del subscriptions[m]
            subscriptions.update(join)


@pytest.mark.parametrize("name", STICKY)
@settings(max_examples=scaled(120))
@given(history=histories(identical=True))
def test_identical_subscriptions_keep_what_is_keepable(name, history):
    for result in play(name, *history):
        best = solve(result.problem)
        assert retained(result.problem, result.assignment) == best.retained
        assert check_run(result).kept


@pytest.mark.parametrize("name", list(ASSIGNORS))
@settings(max_examples=scaled(60))
@given(history=histories(identical=False))
def test_every_round_keeps_the_guarantee(name, history):
    """Differing subscriptions: no stickiness promise, but every round keeps the claimed guarantee."""
    for result in play(name, *history):
        check = check_run(result)
        assert check.kept, check.reason
