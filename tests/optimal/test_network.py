"""The aggregated network: its size follows classes, not partitions x members."""

from hypothesis import given, settings
from strategies import problems

from assignment_oracle.optimal import build_network, solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import owner_arrays


@settings(max_examples=300)
@given(problems(max_topics=5, max_partitions=6, max_members=6, max_assignments=None))
def test_aggregate_inverts_materialize(problem):
    solution = solve(problem)
    network = solution.network
    owners, broken = owner_arrays(problem, solution.assignment)
    assert not broken
    class_kept, arc_flow = network.aggregate(owners)
    assert network.materialize(class_kept, arc_flow) == solution.assignment


@settings(max_examples=300)
@given(problems(max_topics=5, max_partitions=6, max_members=6, max_assignments=None))
def test_hubs_are_distinct_subscriber_sets_and_classes_partition_the_free_partitions(problem):
    network = build_network(problem)
    subscriber_sets = {problem.subscribers[t.name] for t in problem.assignable_topics}
    assert set(network.hubs) == subscriber_sets and len(network.hubs) == len(subscriber_sets)
    assert int(network.class_count.sum()) + int(network.fixed.sum()) == problem.total_partitions
    # Capacity: what a member could hold, given the claims that are fixed.
    owner = network.previous_owner
    for member, capacity in enumerate(network.capacity.tolist()):
        eligible = 0
        for i, t in enumerate(network.topics):
            before = owner[network.topic_start[i] : network.topic_start[i + 1]]
            fixed = network.fixed[network.topic_start[i] : network.topic_start[i + 1]]
            mine = before == member
            if member in problem.subscribers[t]:
                eligible += int((~fixed | mine).sum())
        assert capacity == eligible


def test_kafka_scale_group_collapses_to_one_hub():
    # 300 members, 40 topics x 300 partitions, all subscribed: one hub, one class.
    topics = {f"t{i}": 300 for i in range(40)}
    problem = Problem.from_mapping(
        {"topics": topics, "members": {f"m{j}": {"topics": list(topics)} for j in range(300)}}
    )
    network = build_network(problem)
    assert len(network.hubs) == 1 and network.class_count.size == 1
    solution = solve(problem)
    assert solution.sorted_loads == (40,) * 300
    # A handful of arcs per member, not one per (partition, member) pair.
    assert solution.stats["arcs"] <= 5 * 300
