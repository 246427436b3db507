"""Every worked example in the seeds, as a named test with the seed's table.

Tables are typed from ``shared/seeds`` (KIP-54 examples 1-3, KIP-49's three
tables, KIP-315's walk-through), not produced by the code under test.  Where
a seed's table cannot come out of its own algorithm, the test says so and
asserts the properties the seed states instead.
"""

from __future__ import annotations

import pytest

from assignment_oracle.heuristics import ASSIGNORS
from assignment_oracle.problem import Problem
from assignment_oracle.problem.metrics import load_vector, retained
from assignment_oracle.problem.ownership import violations


def table(rows: dict[str, str]) -> dict[str, dict[str, list[int]]]:
    """``{"C0": "t0p0, t1p1"}`` -> the assignment mapping (KIP-54's notation)."""
    out: dict[str, dict[str, list[int]]] = {}
    for member, cells in rows.items():
        topics: dict[str, list[int]] = {}
        for cell in filter(None, (c.strip() for c in cells.split(","))):
            topic, partition = cell.split("p") if "p" in cell else cell.split("-")
            topics.setdefault(topic, []).append(int(partition))
        out[member] = {t: sorted(ps) for t, ps in sorted(topics.items())}
    return out


def run(name: str, problem: Problem) -> dict:
    return ASSIGNORS[name].assign(problem).to_mapping(problem.member_ids)


# -- KIP-54 -----------------------------------------------------------------

ALL4 = ["t0", "t1", "t2", "t3"]
EXAMPLE1 = {"t0": 2, "t1": 2, "t2": 2, "t3": 2}
EXAMPLE1_FIRST = table({"C0": "t0p0, t1p1, t3p0", "C1": "t0p1, t2p0, t3p1", "C2": "t1p0, t2p1"})


def group(topics: dict, subscriptions: dict, owned: dict | None = None, generation: int = 1) -> Problem:
    members = {}
    for m, subscribed in subscriptions.items():
        entry = {"topics": subscribed}
        if owned and owned.get(m):
            entry["owned"] = owned[m]
            entry["generation"] = generation
        members[m] = entry
    return Problem.from_mapping({"topics": topics, "members": members})


@pytest.mark.parametrize("name", ["roundrobin", "sticky"])
def test_kip54_example1_fresh(name):
    """Both assignors give the seed's first table."""
    problem = group(EXAMPLE1, {m: ALL4 for m in ("C0", "C1", "C2")})
    assert run(name, problem) == EXAMPLE1_FIRST


def test_kip54_example1_after_c1_leaves():
    """(The seed says "C4 is removed", a typo: C1 is the one missing afterwards.)"""
    problem = group(EXAMPLE1, {"C0": ALL4, "C2": ALL4}, {m: EXAMPLE1_FIRST[m] for m in ("C0", "C2")})
    assert run("roundrobin", problem) == table({"C0": "t0p0, t1p0, t2p0, t3p0", "C2": "t0p1, t1p1, t2p1, t3p1"})
    sticky = run("sticky", problem)
    assert sticky == table({"C0": "t0p0, t1p1, t3p0, t2p0", "C2": "t1p0, t2p1, t0p1, t3p1"})
    assert retained(problem, ASSIGNORS["sticky"].assign(problem)) == 5  # "preserving 5"
    assert retained(problem, ASSIGNORS["roundrobin"].assign(problem)) == 3  # "only 3"


EXAMPLE2 = {"t0": 1, "t1": 2, "t2": 3}
EXAMPLE2_SUBS = {"C0": ["t0"], "C1": ["t0", "t1"], "C2": ["t0", "t1", "t2"]}


def test_kip54_example2_fresh():
    problem = group(EXAMPLE2, EXAMPLE2_SUBS)
    assert run("roundrobin", problem) == table({"C0": "t0p0", "C1": "t1p0", "C2": "t1p1, t2p0, t2p1, t2p2"})
    assert run("sticky", problem) == table({"C0": "t0p0", "C1": "t1p0, t1p1", "C2": "t2p0, t2p1, t2p2"})


def test_kip54_example2_after_c0_leaves():
    subs = {m: EXAMPLE2_SUBS[m] for m in ("C1", "C2")}
    rr_before = group(EXAMPLE2, subs, table({"C1": "t1p0", "C2": "t1p1, t2p0, t2p1, t2p2"}))
    rr = run("roundrobin", rr_before)
    assert rr == table({"C1": "t0p0, t1p1", "C2": "t1p0, t2p0, t2p1, t2p2"})
    assert retained(rr_before, ASSIGNORS["roundrobin"].assign(rr_before)) == 3  # "preserves 3"
    sticky_before = group(EXAMPLE2, subs, table({"C1": "t1p0, t1p1", "C2": "t2p0, t2p1, t2p2"}))
    assert run("sticky", sticky_before) == table({"C1": "t1p0, t1p1, t0p0", "C2": "t2p0, t2p1, t2p2"})
    assert retained(sticky_before, ASSIGNORS["sticky"].assign(sticky_before)) == 5  # "preserves 5"


EXAMPLE3 = {"t0": 2, "t1": 2}
EXAMPLE3_FIRST = table({"C0": "t0p0, t1p0", "C1": "t0p1, t1p1"})


@pytest.mark.parametrize("name", ["range", "roundrobin", "sticky"])
def test_kip54_example3_fresh(name):
    """ "The range, round robin, and sticky assignors all result in" the same table."""
    assert run(name, group(EXAMPLE3, {"C0": ["t0", "t1"], "C1": ["t0", "t1"]})) == EXAMPLE3_FIRST


def test_kip54_example3_c2_joins():
    """Range and round robin match the seed's tables exactly.

    Sticky: the seed hedges ("something like this": C1 keeps t0p1, C2 gets
    t1p1).  Kafka's algorithm lists C1's partitions in the order C1 reported
    them and moves the first one offered, t0p1, so C1 keeps t1p1 instead;
    the seed's properties are asserted: one partition moves, to C2, and 3
    are preserved.
    """
    subs = {m: ["t0", "t1"] for m in ("C0", "C1", "C2")}
    problem = group(EXAMPLE3, subs, EXAMPLE3_FIRST)
    assert run("range", problem) == table({"C0": "t0p0, t1p0", "C1": "t0p1, t1p1", "C2": ""})
    assert run("roundrobin", problem) == table({"C0": "t0p0, t1p1", "C1": "t0p1", "C2": "t1p0"})
    sticky = ASSIGNORS["sticky"].assign(problem)
    assert not violations(problem, sticky)
    assert retained(problem, sticky) == 3
    assert sorted(load_vector(problem, sticky)) == [1, 1, 2]
    assert sticky.to_mapping()["C0"] == EXAMPLE3_FIRST["C0"]


# -- KIP-49 -----------------------------------------------------------------

KIP49 = Problem.from_mapping(
    {
        "topics": {"T1": 2, "T2": 1, "T3": 2, "T4": 1, "T5": 2},
        "members": {
            "C1": {"topics": ["T1", "T2", "T3", "T4", "T5"]},
            "C2": {"topics": ["T1", "T3", "T5"]},
            "C3": {"topics": ["T1", "T3", "T5"]},
            "C4": {"topics": ["T1", "T2", "T3", "T4", "T5"]},
        },
    }
)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("range", {"C1": "T1-0, T2-0, T3-0, T4-0, T5-0", "C2": "T1-1, T3-1, T5-1", "C3": "", "C4": ""}),
        ("roundrobin", {"C1": "T1-0, T3-0, T5-0", "C2": "T1-1, T3-1, T5-1", "C3": "", "C4": "T2-0, T4-0"}),
        ("fair", {"C1": "T2-0, T3-0", "C2": "T1-0, T3-1", "C3": "T1-1, T5-0", "C4": "T4-0, T5-1"}),
    ],
)
def test_kip49_tables(name, expected):
    assert run(name, KIP49) == table(expected)


# -- KIP-315 ----------------------------------------------------------------

JOIN = ["clicks", "impressions"]


def numbers(assignment: dict, topic: str = "impressions") -> dict[str, list[int]]:
    return {m: ts.get(topic, []) for m, ts in assignment.items()}


def test_kip315_range_gives_the_valid_join_table():
    """ "Consumer A is responsible for all of partition 0,1, and 2 across all
    topics ... B ... 3,4, and 5": Range co-partitions; four members, ten partitions."""
    problem = group({"clicks": 10, "impressions": 10}, {m: JOIN for m in "ABCD"})
    got = run("range", problem)
    for topic in JOIN:
        assert numbers(got, topic) == {"A": [0, 1, 2], "B": [3, 4, 5], "C": [6, 7], "D": [8, 9]}


def test_kip315_d_leaves():
    """KIP-315's walk-through: after D leaves, Range moves 3 and 6 needlessly;
    the stream-join assignor moves nothing A, B and C owned, and gives D's 8
    and 9 to members with room."""
    before = {"A": [0, 1, 2], "B": [3, 4, 5], "C": [6, 7]}
    problem = group(
        {"clicks": 10, "impressions": 10},
        {m: JOIN for m in "ABC"},
        {m: {t: ps for t in JOIN} for m, ps in before.items()},
    )
    ranged = numbers(run("range", problem))
    assert 3 not in ranged["B"] and 6 not in ranged["C"]  # "Partition 3 moved ... Partition 6 moved"
    joined = run("stream-join-sticky", problem)
    for topic in JOIN:
        got = numbers(joined, topic)
        for member, ps in before.items():
            assert set(ps) <= set(got[member])
        assert sorted(p for ps in got.values() for p in ps) == list(range(10))
        assert sorted(len(ps) for ps in got.values()) == [3, 3, 4]


def test_kip315_partition_count_increase_leaves_new_partitions_unassigned():
    """Step 1.1: partitions added to one topic wait until the others catch up."""
    problem = group({"clicks": 6, "impressions": 4}, {m: JOIN for m in "AB"})
    got = run("stream-join-sticky", problem)
    assert sorted(p for m in got for p in got[m]["clicks"]) == [0, 1, 2, 3]
    assert numbers(got, "clicks") == numbers(got, "impressions")


def test_kip315_new_topic_tried_on_one_member():
    """Step 5.1: a topic only A subscribes to is assigned only for A's numbers."""
    problem = group({"clicks": 4, "impressions": 4, "new": 4}, {"A": JOIN + ["new"], "B": JOIN})
    got = run("stream-join-sticky", problem)
    assert got["A"]["new"] == got["A"]["clicks"]
    assert "new" not in got["B"]
