// The assignor docs/testing.md's Java example judges, written for tests/docs/test_testing_examples.py against
// Kafka's ConsumerPartitionAssignor (here the stand-in of tests/heuristics/java/standin): Kafka's range, per
// topic, subscribers in name order, contiguous runs, the first ones taking one more (per-topic balance).
package com.example;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

public class MyAssignor implements ConsumerPartitionAssignor {
    @Override
    public String name() {
        return "my-range";
    }

    @Override
    public GroupAssignment assign(Cluster cluster, GroupSubscription group) {
        Map<String, Subscription> members = new TreeMap<>(group.groupSubscription());
        Map<String, List<TopicPartition>> given = new TreeMap<>();
        TreeSet<String> topics = new TreeSet<>();
        members.forEach((member, subscription) -> {
            given.put(member, new ArrayList<>());
            topics.addAll(subscription.topics());
        });
        for (String topic : topics) {
            List<String> subscribers = new ArrayList<>();
            members.forEach((member, subscription) -> {
                if (subscription.topics().contains(topic))
                    subscribers.add(member);
            });
            int count = cluster.partitionsForTopic(topic).size();
            int each = count / subscribers.size(), extra = count % subscribers.size(), next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int take = each + (i < extra ? 1 : 0);
                for (int k = 0; k < take; k++)
                    given.get(subscribers.get(i)).add(new TopicPartition(topic, next + k));
                next += take;
            }
        }
        Map<String, Assignment> out = new TreeMap<>();
        given.forEach((member, partitions) -> out.put(member, new Assignment(partitions)));
        return new GroupAssignment(out);
    }
}
