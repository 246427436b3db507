// Stand-in written for tools/kafka_differential (not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Only partitionsForTopic is read (AbstractPartitionAssignor.assign); racks come with PartitionInfo's replicas. */
public final class Cluster {
    private final Map<String, List<PartitionInfo>> partitionsByTopic;

    public Cluster(Map<String, List<PartitionInfo>> partitionsByTopic) {
        this.partitionsByTopic = partitionsByTopic;
    }

    /** As Kafka's: the topic's partitions, an empty list for an unknown topic. */
    public List<PartitionInfo> partitionsForTopic(String topic) {
        return partitionsByTopic.getOrDefault(topic, Collections.emptyList());
    }
}
