"""kafka4-cooperative-never-settles: a rack-aware cooperative group that Kafka 4 (and its port) rebalances forever.

The scenario is the bug corpus entry's; Kafka's own Java at 1eb7644 was driven through the same loop with
``tools/kafka_differential/settle.py`` and gave the same assignments rebalance by rebalance (not re-run here:
the differential tool is not part of CI).
"""

from __future__ import annotations

import copy

import pytest

from assignment_oracle.compare.scenarios.bugs import BUGS, KAFKA_COMMIT, replay
from assignment_oracle.heuristics import cooperative_sticky, kafka4_sticky
from assignment_oracle.problem import Problem
from assignment_oracle.problem.errors import AssignorDidNotFinish

NAME = "kafka4-cooperative-never-settles"
SCENARIO = BUGS[NAME].scenarios[0]
OPTIONS = [
    {"iteration_order": order, "literal": literal, "prefer_rack_aware_logic": prefer}
    for order in kafka4_sticky.ITERATION_ORDERS
    for literal in (False, True)
    for prefer in (False, True)
]

# What Kafka's Java assigned, rebalance by rebalance (settle.py at 1eb7644): c1 alternates t1-1 and t0-1.
ODD = {"c0": {"t1": [0, 2]}, "c1": {"t0": [1, 2]}, "c2": {"t0": [0]}}  # c1 revoked t1-1 (withheld for c0)
EVEN = {"c0": {"t1": [0, 2]}, "c1": {"t0": [2], "t1": [1]}, "c2": {"t0": [0]}}  # c1 revoked t0-1 (for c2)


def _phases(problem: Problem, rebalances: int, **options) -> list[tuple[dict, dict]]:
    """(assignment, revoked) of each rebalance of Kafka 4's cooperative protocol, also when it never settles."""
    order, literal = options.get("iteration_order", "sorted"), options.get("literal", False)
    seen: list[Problem] = []

    def target(p: Problem):
        seen.append(p)
        return kafka4_sticky.assign(p, **options)

    def holdings(p: Problem):
        return kafka4_sticky.believed_holdings(p, order, literal)

    try:  # one rebalance more than asked: the target of rebalance k + 1 sees what rebalance k gave
        result = cooperative_sticky.rebalance(problem, max_rebalances=rebalances + 1, target=target, holdings=holdings)
        return [(p.assignment.to_mapping(), p.revoked.to_mapping()) for p in result.phases[:rebalances]]
    except AssignorDidNotFinish:
        pass
    # Each rebalance's problem is the previous one's outcome: what members own is what they were given.
    owned = [_owned(p) for p in seen[1 : rebalances + 1]]
    out = []
    for before, after in zip([_owned(problem)] + owned, owned):
        lost = {}
        for m, topics in before.items():
            gone = {t: [q for q in ps if q not in after.get(m, {}).get(t, [])] for t, ps in topics.items()}
            gone = {t: ps for t, ps in gone.items() if ps}
            if gone:
                lost[m] = gone
        out.append(({m: ts for m, ts in after.items()}, lost))
    return out


def _owned(problem: Problem) -> dict:
    return {m.member_id: {t: list(ps) for t, ps in m.owned} for m in problem.members}


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_the_port_still_revokes_after_ten_rebalances_in_every_order_and_option(options):
    with pytest.raises(AssignorDidNotFinish, match="still revoking partitions after 10 rebalances"):
        kafka4_sticky.rebalance_cooperative(Problem.from_mapping(SCENARIO), **options)


def test_it_is_a_cycle_not_a_slow_settling():
    with pytest.raises(AssignorDidNotFinish, match="after 200 rebalances"):
        kafka4_sticky.rebalance_cooperative(
            Problem.from_mapping(SCENARIO), iteration_order="java", literal=True, max_rebalances=200
        )


@pytest.mark.parametrize("order", kafka4_sticky.ITERATION_ORDERS)
def test_c1_revokes_t1_1_and_t0_1_in_turn_as_kafkas_java_did(order):
    phases = _phases(Problem.from_mapping(SCENARIO), 10, iteration_order=order, literal=True)
    assert len(phases) == 10
    for k, (assignment, revoked) in enumerate(phases):
        expected = ODD if k % 2 == 0 else EVEN
        assert {m: {t: sorted(ps) for t, ps in ts.items()} for m, ts in assignment.items() if ts} == expected, k
        assert revoked == ({"c1": {"t1": [1]}} if k % 2 == 0 else {"c1": {"t0": [1]}}), k


def test_without_racks_the_same_group_settles_at_once():
    plain = copy.deepcopy(SCENARIO)
    for member in plain["members"].values():
        member.pop("rack", None)
    assert plain == BUGS[NAME].scenarios[1]
    for order in kafka4_sticky.ITERATION_ORDERS:
        result = kafka4_sticky.rebalance_cooperative(Problem.from_mapping(plain), iteration_order=order)
        assert result.rebalances == 1
        assert result.final.to_mapping() == {"c0": {"t1": [0, 2]}, "c1": {"t0": [1], "t1": [1]}, "c2": {"t0": [0, 2]}}


def test_formed_from_nothing_it_settles_but_every_later_rebalance_moves_two_partitions_out_and_back():
    fresh = copy.deepcopy(SCENARIO)
    for member in fresh["members"].values():
        member.pop("owned", None)
        member.pop("generation", None)
    problem = Problem.from_mapping(fresh)
    first = kafka4_sticky.rebalance_cooperative(problem, iteration_order="java", literal=True)
    settled = {"c0": {"t1": [0, 1, 2]}, "c1": {"t0": [1, 2]}, "c2": {"t0": [0]}}
    assert first.rebalances == 1 and first.final.to_mapping() == settled
    current = problem
    for generation in range(1, 4):  # nothing changes in the group; it just rebalances again
        current = Problem.from_mapping(
            {
                "topics": SCENARIO["topics"],
                "members": {
                    m: {**{k: v for k, v in e.items() if k not in ("owned", "generation")}}
                    | {"owned": settled[m], "generation": generation}
                    for m, e in fresh["members"].items()
                },
            }
        )
        again = kafka4_sticky.rebalance_cooperative(current, iteration_order="java", literal=True)
        assert again.rebalances == 2
        assert again.revoked.to_mapping() == {"c0": {"t1": [1]}, "c1": {"t0": [1]}}
        assert again.final.to_mapping() == settled  # A -> B -> A


def test_the_replay_reproduces_it_and_the_report_names_the_code_and_the_confirmation():
    result = replay(NAME)
    assert result.reproduced and result.fixed and result.as_expected, result.finding
    assert "period 2" in result.finding and "still revoking partitions after 10 rebalances" in result.finding
    assert [row.status for row in result.rows[0].values()] == ["timeout", "timeout"]
    assert [row.status for row in result.rows[1].values()] == ["ok", "ok"]
    report = BUGS[NAME].report
    assert KAFKA_COMMIT in report
    for needle in ("lines 1052-1056", "line 1368", "adjustAssignment", "settle.py", "Smallest input", "Expected:"):
        assert needle in report, needle
