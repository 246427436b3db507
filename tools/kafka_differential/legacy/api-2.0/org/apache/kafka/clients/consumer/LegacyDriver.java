// Written for tools/kafka_differential/legacy.py (not Kafka's file): Kafka's StickyAssignor through the
// PartitionAssignor API of Kafka 0.11-2.3 (internals.PartitionAssignor: assign(Cluster, Map<String, Subscription>),
// a Subscription of topics and user data only).  Protocol: LegacyScenario.
package org.apache.kafka.clients.consumer;

import org.apache.kafka.clients.consumer.internals.PartitionAssignor;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class LegacyDriver {
    private LegacyDriver() {
    }

    public static void main(String[] args) throws Exception {
        LegacyScenario.serve((cluster, members, request) -> {
            String name = request.path("assignor").asText();
            if (!name.equals("sticky"))
                throw new IllegalArgumentException("this release has no " + name);
            boolean v1 = request.path("user_data").asText("v1").equals("v1");
            // Kafka's ConsumerCoordinator hands the leader a HashMap filled in the members' join order.
            Map<String, PartitionAssignor.Subscription> subscriptions = new HashMap<>();
            for (LegacyScenario.Member m : members)
                subscriptions.put(m.id, new PartitionAssignor.Subscription(m.topics, LegacyScenario.stickyUserData(m, v1)));
            Map<String, List<TopicPartition>> out = new HashMap<>();
            for (Map.Entry<String, PartitionAssignor.Assignment> e : new StickyAssignor().assign(cluster, subscriptions).entrySet())
                out.put(e.getKey(), e.getValue().partitions());
            return out;
        });
    }
}
