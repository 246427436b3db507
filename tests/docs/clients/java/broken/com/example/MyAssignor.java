// Deliberately broken (tests/docs/test_testing_examples.py): every partition of a topic goes to its first
// subscriber in name order. docs/testing.md's Java example must fail on it.
package com.example;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class MyAssignor implements ConsumerPartitionAssignor {
    @Override
    public String name() {
        return "my-broken";
    }

    @Override
    public GroupAssignment assign(Cluster cluster, GroupSubscription group) {
        Map<String, Subscription> members = new TreeMap<>(group.groupSubscription());
        Map<String, List<TopicPartition>> given = new TreeMap<>();
        members.keySet().forEach(member -> given.put(member, new ArrayList<>()));
        members.forEach((member, subscription) -> {
            for (String topic : subscription.topics()) {
                boolean first = members.entrySet().stream()
                        .filter(e -> e.getValue().topics().contains(topic))
                        .findFirst().get().getKey().equals(member);
                int count = cluster.partitionsForTopic(topic).size();
                for (int p = 0; first && p < count; p++)
                    given.get(member).add(new TopicPartition(topic, p));
            }
        });
        Map<String, Assignment> out = new TreeMap<>();
        given.forEach((member, partitions) -> out.put(member, new Assignment(partitions)));
        return new GroupAssignment(out);
    }
}
