"""KIP-429's protocol: a partition goes to a new owner only once nobody holds it.

"Holds" is what a member claims, whatever claim resolution made of the
claim: a member whose claim was tied, superseded by a newer generation or
is on a topic it unsubscribed from keeps consuming the partition until its
new assignment leaves it out.  The checks here work on plain sets built
from the raw claims, independently of :mod:`problem.ownership` and of the
port; the anchors are Kafka's own ``CooperativeStickyAssignorTest`` cases.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle_profile import scaled
from strategies import problems, rebalances

from assignment_oracle.compare.judge.guarantees import check_guarantee
from assignment_oracle.heuristics import cooperative_sticky, sticky, sticky_kafka
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations

CONFLICTS = ("tied", "stale", "unsubscribed", "departed")


def claims(problem: Problem) -> dict[str, set[tuple[str, int]]]:
    """What each member holds as the rebalance starts: every partition it sent as owned."""
    return {m.member_id: {(t, p) for t, ps in m.owned for p in ps} for m in problem.members}


def partitions(assignment, member) -> set[tuple[str, int]]:
    return {(t, p) for t, ps in assignment.members.get(member, {}).items() for p in ps}


def assert_protocol_kept(problem: Problem, result, target=sticky.assign) -> None:
    """Every rebalance: nothing goes to a new owner while another member holds it; each member
    revokes exactly what it held and was not given; the group rejoins while anything was revoked.
    ``target``: the eager assignment the first rebalance aims for."""
    held = claims(problem)
    ids = problem.member_ids
    for number, phase in enumerate(result.phases):
        for member in ids:
            new = partitions(phase.assignment, member) - held[member]
            others = set().union(*(held[m] for m in ids if m != member))
            assert not new & others, f"rebalance {number}: {sorted(new & others)} go to {member} while held elsewhere"
            assert partitions(phase.revoked, member) == held[member] - partitions(phase.assignment, member)
        last = number == len(result.phases) - 1
        assert bool(phase.revoked.members) != last, "the group rejoins exactly while something was revoked"
        held = {m: partitions(phase.assignment, m) for m in ids}
    # The first rebalance hands out the sticky target minus what it withholds.
    first = result.phases[0]
    target = target(problem)
    for member in ids:
        assert partitions(first.assignment, member) | partitions(first.withheld, member) == partitions(target, member)
        assert not partitions(first.assignment, member) & partitions(first.withheld, member)


@st.composite
def with_conflict(draw, kind: str) -> Problem:
    """A rebalance after a real previous generation (:func:`strategies.rebalances`) plus one conflict.

    ``tied``: a member also claims another member's partition, at that member's generation.
    ``stale``: a zombie claims another member's partition one generation below it.
    ``unsubscribed``: a member dropped a topic it still owns partitions of.
    ``departed``: a member that owned partitions left the group.
    """
    data = draw(rebalances()).to_mapping()
    members = data["members"]
    owners = sorted(m for m, e in members.items() if e.get("owned"))
    assume(owners and (kind in ("unsubscribed", "departed") or len(members) >= 2))
    if kind in ("tied", "stale"):
        victim = draw(st.sampled_from(owners))
        x = draw(st.sampled_from(sorted(set(members) - {victim})))
        theirs = sorted((t, p) for t, ps in members[victim]["owned"].items() for p in ps)
        for t, p in draw(st.lists(st.sampled_from(theirs), min_size=1, max_size=3, unique=True)):
            members[x].setdefault("owned", {}).setdefault(t, []).append(p)
        members[x]["generation"] = members[victim]["generation"] - (kind == "stale")
    elif kind == "unsubscribed":
        x = draw(st.sampled_from(owners))
        dropped = draw(st.sampled_from(sorted(members[x]["owned"])))
        members[x]["topics"] = [t for t in members[x]["topics"] if t != dropped]
    else:
        del members[draw(st.sampled_from(owners))]
    return Problem.from_mapping(data)


@pytest.mark.parametrize("kind", CONFLICTS)
@settings(max_examples=scaled(150))
@given(data=st.data())
def test_no_partition_goes_to_a_new_owner_while_another_member_holds_it(kind, data):
    problem = data.draw(with_conflict(kind))
    result = cooperative_sticky.rebalance(problem)
    assert_protocol_kept(problem, result)
    assert violations(problem, result.final) == ()
    assert check_guarantee(
        "cooperative-kafka-balance", problem, result.final, rounds=[p.assignment for p in result.phases]
    ).kept


@settings(max_examples=scaled(200))
@given(problem=st.one_of(rebalances(), problems(max_topics=3, max_partitions=5, max_members=5, max_assignments=None)))
def test_the_protocol_holds_on_any_claims(problem):
    """Real rebalances and garbage claims (unknown topics, partitions that do not exist, no generation)."""
    result = cooperative_sticky.rebalance(problem)
    assert_protocol_kept(problem, result)
    assert violations(problem, result.final) == ()
    assert check_guarantee("kafka-balance", problem, result.final).kept


def test_kafka_tied_claims_with_equal_partitions_per_consumer():
    """CooperativeStickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultiple
    ConsumersInSameGenerationWithEqualPartitionsPerConsumer: topic-0 waits until both have revoked it."""
    problem = Problem.from_mapping(
        {
            "topics": {"topic": 3},
            "members": {
                "consumer1": {"topics": ["topic"], "owned": {"topic": [0, 1]}, "generation": 1},
                "consumer2": {"topics": ["topic"], "owned": {"topic": [0, 2]}, "generation": 1},
                "consumer3": {"topics": ["topic"]},
            },
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert result.first.to_mapping(problem.member_ids) == {
        "consumer1": {"topic": [1]},
        "consumer2": {"topic": [2]},
        "consumer3": {},
    }
    assert result.revoked.to_mapping() == {"consumer1": {"topic": [0]}, "consumer2": {"topic": [0]}}
    assert result.phases[0].withheld.to_mapping() == {"consumer3": {"topic": [0]}}
    assert result.rebalances == 2
    assert result.final.to_mapping() == {
        "consumer1": {"topic": [1]},
        "consumer2": {"topic": [2]},
        "consumer3": {"topic": [0]},
    }


def test_kafka_tied_claims_with_unequal_partitions_per_consumer():
    """...WithUnequalPartitionsPerConsumer: four partitions; consumer1 also takes topic-3 at once
    (nobody held it), consumer3 waits for topic-0."""
    problem = Problem.from_mapping(
        {
            "topics": {"topic": 4},
            "members": {
                "consumer1": {"topics": ["topic"], "owned": {"topic": [0, 1]}, "generation": 1},
                "consumer2": {"topics": ["topic"], "owned": {"topic": [0, 2]}, "generation": 1},
                "consumer3": {"topics": ["topic"]},
            },
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert result.first.to_mapping(problem.member_ids) == {
        "consumer1": {"topic": [1, 3]},
        "consumer2": {"topic": [2]},
        "consumer3": {},
    }
    assert partitions(result.final, "consumer3") == {("topic", 0)}
    assert result.rebalances == 2


def test_a_member_that_unsubscribed_still_holds_its_partitions():
    """``a`` owned t-0 and t-1 but now subscribes only to u: it consumes them until it revokes them."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 2, "u": 1},
            "members": {"a": {"topics": ["u"], "owned": {"t": [0, 1]}, "generation": 3}, "b": {"topics": ["t"]}},
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert result.first.to_mapping(problem.member_ids) == {"a": {"u": [0]}, "b": {}}
    assert result.revoked.to_mapping() == {"a": {"t": [0, 1]}}
    assert result.final.to_mapping() == {"a": {"u": [0]}, "b": {"t": [0, 1]}}
    assert result.rebalances == 2


def test_a_stale_claim_is_still_held():
    """The zombie ``z`` still consumes t-0 from generation 1; ``a`` owns it at generation 2.

    KIP-341's sticky target gives t-0 back to ``z``, its remembered previous
    owner, because ``a`` is 2+ heavier (heuristics.sticky, step 4).  ``z``
    never stopped consuming it, so that is no handoff and nothing waits;
    ``a`` revokes t-0, and because it revoked something the group rebalances
    once more, with nothing left to move.
    """
    problem = Problem.from_mapping(
        {
            "topics": {"t": 2},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 2},
                "n": {"topics": ["t"]},
                "z": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
            },
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert_protocol_kept(problem, result)
    assert result.first.to_mapping(problem.member_ids) == {"a": {"t": [1]}, "n": {}, "z": {"t": [0]}}
    assert result.revoked.to_mapping() == {"a": {"t": [0]}}
    assert not result.phases[0].withheld.members
    assert result.rebalances == 2 and result.final == result.first


def test_a_stale_claim_blocks_a_handoff_to_a_third_member():
    """``z`` (generation 1) claims t-0, t-2 and t-3, ``a`` (generation 2) t-0 and t-1: t-0 is held
    twice and every other partition once, so whatever the new member ``n`` is to get waits for its
    holders to revoke it, t-0 included if it is chosen, although ``z``'s claim on it lost."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 2},
                "n": {"topics": ["t"]},
                "z": {"topics": ["t"], "owned": {"t": [0, 2, 3]}, "generation": 1},
            },
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert_protocol_kept(problem, result)
    assert result.first.load("n") == 0  # whatever n gets, a or z still held it
    assert sorted(result.final.load(m) for m in "anz") == [1, 1, 2]
    assert result.rebalances == 2


def test_a_departed_member_holds_nothing():
    """``d`` left the group (it sends no claims): its partitions go to ``b`` in the first rebalance."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4},
            "members": {"a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 3}, "b": {"topics": ["t"]}},
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert result.rebalances == 1 and not result.revoked.members
    assert result.final.to_mapping() == {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}


def test_a_joining_member_waits_for_the_follow_up_rebalance():
    """The KIP-429 scenario: A and B consume, C joins; only the partition that
    moves stops, for one rebalance."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4},
            "members": {
                "A": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 5},
                "B": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 5},
                "C": {"topics": ["t"]},
            },
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert result.rebalances == 2
    assert result.first.to_mapping(problem.member_ids)["C"] == {}
    moved = {(tp.topic, tp.partition) for m in "AB" for tp in result.revoked.partitions_of(m)}
    assert len(moved) == 1
    assert partitions(result.final, "C") == moved
    assert result.final == sticky.assign(problem)  # the eager target, reached in two steps


def test_nothing_to_move_is_one_rebalance():
    problem = Problem.from_mapping(
        {
            "topics": {"t": 2},
            "members": {
                "A": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
                "B": {"topics": ["t"], "owned": {"t": [1]}, "generation": 1},
            },
        }
    )
    result = cooperative_sticky.rebalance(problem)
    assert result.rebalances == 1 and result.first == result.final and not result.revoked.members


# Java's order.  The first rebalances expected below are Kafka's Java: each scenario was run through
# tools/kafka_differential/legacy.py's LegacyDriver (Java 17.0.15) against CooperativeStickyAssignor built from
# the apache/kafka tag 2.4.1 (ownedPartitions, no generation), and Kafka's assign() copied here.
KAFKA_2_4_1 = [
    pytest.param(  # README "Older releases": both claim t0-0 without a generation; the last one iterated keeps it
        {
            "topics": {"t0": 1},
            "members": {"c0": {"topics": ["t0"], "owned": {"t0": [0]}}, "c1": {"topics": ["t0"], "owned": {"t0": [0]}}},
        },
        {"c0": {}, "c1": {"t0": [0]}},
        id="last-claimant",
    ),
    pytest.param(  # t0-1 is listed first (hash order), so it is the one revoked for c0
        {"topics": {"t0": 2}, "members": {"c0": {"topics": ["t0"]}, "c1": {"topics": ["t0"], "owned": {"t0": [0, 1]}}}},
        {"c0": {}, "c1": {"t0": [0]}},
        id="partition-hash-order",
    ),
    pytest.param(  # the rebalance() docstring's example: Kafka revokes t-1 from a, the sorted order t-0
        {
            "topics": {"t": 3},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [0, 1]}},
                "b": {"topics": ["t"], "owned": {"t": [2]}},
                "c": {"topics": ["t"]},
            },
        },
        {"a": {"t": [0]}, "b": {"t": [2]}, "c": {}},
        id="docstring-example",
    ),
]


def kafka_2_4_1_target(problem: Problem):
    return sticky_kafka.assign(problem, "2.4.1")


@pytest.mark.parametrize("scenario, kafka_first", KAFKA_2_4_1)
def test_javas_order_is_kafka_2_4_1(scenario, kafka_first):
    """The first rebalance is Kafka 2.4.1's assign() (legacy.py, see above); the protocol is kept to the end."""
    problem = Problem.from_mapping(scenario)
    result = cooperative_sticky.rebalance(problem, iteration_order="java")
    assert result.first.to_mapping() == kafka_first
    assert result.first.to_mapping() != cooperative_sticky.rebalance(problem).first.to_mapping()
    assert_protocol_kept(problem, result, kafka_2_4_1_target)
    assert cooperative_sticky.assign(problem, iteration_order="java").to_mapping() == result.final.to_mapping()


def test_an_unknown_iteration_order_is_refused():
    p = Problem.from_mapping({"topics": {"t": 1}, "members": {"a": {"topics": ["t"]}}})
    with pytest.raises(ValueError, match="iteration_order"):
        cooperative_sticky.rebalance(p, iteration_order="random")


@settings(max_examples=scaled(150), deadline=None)
@given(problem=rebalances(max_members=6, max_partitions=8))
def test_the_sorted_order_is_the_default_and_javas_keeps_the_protocol(problem):
    """``iteration_order="sorted"`` is exactly the default, phase for phase; Java's order keeps KIP-429's rule."""
    default, ordered = (
        cooperative_sticky.rebalance(problem),
        cooperative_sticky.rebalance(problem, iteration_order="sorted"),
    )
    assert [(p.assignment.to_mapping(), p.revoked.to_mapping(), p.withheld.to_mapping()) for p in default.phases] == [
        (p.assignment.to_mapping(), p.revoked.to_mapping(), p.withheld.to_mapping()) for p in ordered.phases
    ]
    assert_protocol_kept(problem, cooperative_sticky.rebalance(problem, iteration_order="java"), kafka_2_4_1_target)
