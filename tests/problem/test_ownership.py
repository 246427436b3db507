"""Validity: every violation kind is named."""

from assignment_oracle.problem import Assignment, Problem
from assignment_oracle.problem.ownership import violations

P = Problem.from_mapping(
    {
        "topics": {"t": 3, "u": 1, "nobody": 2},
        "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t", "u"]}},
    }
)


def kinds(assignment):
    return {(v.kind, v.member_id, v.topic, v.partitions) for v in violations(P, assignment)}


def test_valid_assignment_has_no_violations():
    assert kinds(Assignment({"a": {"t": (0, 1)}, "b": {"t": (2,), "u": (0,)}})) == set()


def test_each_kind_is_reported():
    found = kinds(
        Assignment(
            {
                "a": {"t": (0, 0, 9), "u": (0,), "nobody": (1,), "ghost": (0,)},
                "zed": {"t": (1,)},
            }
        )
    )
    assert found == {
        ("duplicated", None, "t", (0,)),
        ("unknown", "a", "t", (9,)),
        ("not-subscribed", "a", "u", (0,)),
        ("not-subscribed", "a", "nobody", (1,)),
        ("unknown", "a", "ghost", (0,)),
        ("unknown", "zed", "t", (1,)),
        ("missing", None, "t", (1, 2)),
    }


def test_negative_partition_numbers_are_unknown_not_wrapped():
    # Through the Python API nothing stops a -1; it must not count as the last partition.
    found = kinds(Assignment({"a": {"t": (0, 1)}, "b": {"t": (-1,), "u": (0,)}}))
    assert ("unknown", "b", "t", (-1,)) in found
    assert ("missing", None, "t", (2,)) in found
