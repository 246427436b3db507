"""The assignment's entry arrays hold exactly what the nested form holds, and write the same bytes."""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.problem.model import Assignment, Member, Problem, Topic, TopicPartition
from assignment_oracle.problem.scenario_json import dumps

names = st.text(alphabet=st.sampled_from('ab1-"\\é :'), min_size=1, max_size=3)
nested = st.dictionaries(
    names,
    st.dictionaries(names, st.lists(st.integers(-3, 2**40), max_size=4), max_size=3),
    max_size=4,
)


def normalised(mapping: dict) -> dict:
    """What the nested form means: sorted partitions, repeats kept, empty topic lists dropped."""
    return {m: {t: sorted(ps) for t, ps in sorted(ts.items()) if ps} for m, ts in sorted(mapping.items())}


@settings(max_examples=300, deadline=None)
@given(nested)
def test_rows_hold_exactly_the_nested_mapping(mapping):
    assignment = Assignment(mapping)
    assert assignment.to_mapping() == normalised(mapping)
    assert assignment.size == sum(len(ps) for ts in mapping.values() for ps in ts.values())
    for member, topics in mapping.items():
        assert assignment.load(member) == sum(len(ps) for ps in topics.values())
        assert sorted(assignment.partitions_of(member)) == sorted(
            TopicPartition(t, p) for t, ps in topics.items() for p in ps
        )
    assert {m: {t: list(ps) for t, ps in ts.items()} for m, ts in assignment.members.items()} == normalised(mapping)
    assert pickle.loads(pickle.dumps(assignment)) == assignment


@settings(max_examples=300, deadline=None)
@given(nested, st.lists(names, max_size=3))
def test_the_writer_streams_the_same_bytes_as_the_nested_form(mapping, extra_members):
    assignment = Assignment(mapping)
    as_rows = dumps({"assignment": assignment.including(extra_members), "n": 1})
    as_mapping = dumps({"assignment": assignment.to_mapping(tuple(extra_members)), "n": 1})
    assert as_rows == as_mapping


@settings(max_examples=300, deadline=None)
@given(nested)
def test_from_partitions_and_from_the_mapping_agree(mapping):
    by_member = {m: [TopicPartition(t, p) for t, ps in ts.items() for p in ps] for m, ts in mapping.items()}
    assert Assignment.from_partitions(by_member) == Assignment(mapping)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(1, 3), st.data())
def test_from_owners_gives_each_partition_to_its_owner(sizes, members, data):
    topics = tuple(Topic(f"t{i}", n) for i, n in enumerate(sizes))
    group = tuple(Member(f"m{i}", frozenset(t.name for t in topics)) for i in range(members))
    problem = Problem(topics, group)
    owner = np.array(data.draw(st.lists(st.integers(-1, members - 1), min_size=sum(sizes), max_size=sum(sizes))))
    expected: dict = {m.member_id: {} for m in group}
    start = 0
    for topic in topics:
        for p in range(topic.partitions):
            if owner[start + p] >= 0:
                expected[f"m{owner[start + p]}"].setdefault(topic.name, []).append(p)
        start += topic.partitions
    assert Assignment.from_owners(problem, owner).to_mapping() == expected
