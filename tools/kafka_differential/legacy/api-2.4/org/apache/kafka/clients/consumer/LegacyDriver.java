// Written for tools/kafka_differential/legacy.py (not Kafka's file): Kafka's StickyAssignor and
// CooperativeStickyAssignor through the ConsumerPartitionAssignor API of Kafka 2.4+ (assign(Cluster,
// GroupSubscription); the Subscription carries ownedPartitions, and since 3.4 a generationId and a rack id,
// found here by reflection so one file serves every release).  Protocol: LegacyScenario.
package org.apache.kafka.clients.consumer;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;

import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public final class LegacyDriver {
    private LegacyDriver() {
    }

    /** Subscription(topics, userData, owned, generationId, rackId) when the release has it (3.4+), else (topics, userData, owned). */
    static Subscription subscription(List<String> topics, ByteBuffer userData, List<TopicPartition> owned, int generation)
            throws Exception {
        try {
            Constructor<Subscription> c = Subscription.class.getConstructor(
                    List.class, ByteBuffer.class, List.class, int.class, Optional.class);
            return c.newInstance(topics, userData, owned, generation, Optional.empty());
        } catch (NoSuchMethodException e) {
            return new Subscription(topics, userData, owned);
        }
    }

    public static void main(String[] args) throws Exception {
        LegacyScenario.serve((cluster, members, request) -> {
            String name = request.path("assignor").asText();
            boolean v1 = request.path("user_data").asText("v1").equals("v1");
            ConsumerPartitionAssignor assignor;
            Map<String, Subscription> subscriptions = new HashMap<>(); // filled in join order, as the coordinator
            for (LegacyScenario.Member m : members) {
                int generation = m.generation == null ? -1 : m.generation;
                if (name.equals("sticky")) // eager: the member revoked everything; its claims travel in the user data
                    subscriptions.put(m.id, subscription(m.topics, LegacyScenario.stickyUserData(m, v1), Collections.emptyList(), generation));
                else if (name.equals("cooperative-sticky")) // claims in ownedPartitions (a generation only where the release has the field)
                    subscriptions.put(m.id, subscription(m.topics, null, m.owned, generation));
                else
                    throw new IllegalArgumentException("unknown assignor " + name);
            }
            assignor = name.equals("sticky") ? new StickyAssignor() : new CooperativeStickyAssignor();
            Map<String, List<TopicPartition>> out = new HashMap<>();
            for (Map.Entry<String, Assignment> e : assignor.assign(cluster, new GroupSubscription(subscriptions)).groupAssignment().entrySet())
                out.put(e.getKey(), e.getValue().partitions());
            return out;
        });
    }
}
