// Stand-in written for tools/kafka_differential/legacy.py (not Kafka's file): the one method the client
// assignors of Kafka 0.11-3.4 read (AbstractPartitionAssignor.assign), so they compile without the client.
package org.apache.kafka.common;

import java.util.Map;

/** Only partitionCountForTopic: the topic's partition count, null for a topic the cluster does not have (as Kafka's). */
public final class Cluster {
    private final Map<String, Integer> partitionCounts;

    public Cluster(Map<String, Integer> partitionCounts) {
        this.partitionCounts = partitionCounts;
    }

    public Integer partitionCountForTopic(String topic) {
        return partitionCounts.get(topic);
    }
}
