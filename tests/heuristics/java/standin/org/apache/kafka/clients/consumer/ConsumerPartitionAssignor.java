// Stand-in written for tests/heuristics/test_java_class.py (not Kafka's file): the part of Kafka's
// ConsumerPartitionAssignor (kafka-clients 3.5+) that heuristics/java/AssignorDriver.java touches, with the same
// signatures, so the driver and the test assignors compile without Kafka.
package org.apache.kafka.clients.consumer;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

public interface ConsumerPartitionAssignor {
    default ByteBuffer subscriptionUserData(Set<String> topics) {
        return null;
    }

    GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription);

    default void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
    }

    default List<RebalanceProtocol> supportedProtocols() {
        return Collections.singletonList(RebalanceProtocol.EAGER);
    }

    String name();

    final class Subscription {
        private final List<String> topics;
        private final ByteBuffer userData;
        private final List<TopicPartition> ownedPartitions;
        private final Optional<String> rackId;
        private Optional<String> groupInstanceId = Optional.empty();
        private final Optional<Integer> generationId;

        public Subscription(List<String> topics, ByteBuffer userData, List<TopicPartition> ownedPartitions,
                            int generationId, Optional<String> rackId) {
            this.topics = topics;
            this.userData = userData;
            this.ownedPartitions = ownedPartitions;
            this.generationId = generationId < 0 ? Optional.empty() : Optional.of(generationId);
            this.rackId = rackId;
        }

        public List<String> topics() {
            return topics;
        }

        public ByteBuffer userData() {
            return userData;
        }

        public List<TopicPartition> ownedPartitions() {
            return ownedPartitions;
        }

        public Optional<String> rackId() {
            return rackId;
        }

        public void setGroupInstanceId(Optional<String> groupInstanceId) {
            this.groupInstanceId = groupInstanceId;
        }

        public Optional<String> groupInstanceId() {
            return groupInstanceId;
        }

        public Optional<Integer> generationId() {
            return generationId;
        }
    }

    final class Assignment {
        private final List<TopicPartition> partitions;

        public Assignment(List<TopicPartition> partitions) {
            this.partitions = partitions;
        }

        public List<TopicPartition> partitions() {
            return partitions;
        }
    }

    final class GroupSubscription {
        private final Map<String, Subscription> subscriptions;

        public GroupSubscription(Map<String, Subscription> subscriptions) {
            this.subscriptions = subscriptions;
        }

        public Map<String, Subscription> groupSubscription() {
            return subscriptions;
        }
    }

    final class GroupAssignment {
        private final Map<String, Assignment> assignments;

        public GroupAssignment(Map<String, Assignment> assignments) {
            this.assignments = assignments;
        }

        public Map<String, Assignment> groupAssignment() {
            return assignments;
        }
    }

    enum RebalanceProtocol {
        EAGER, COOPERATIVE
    }
}
