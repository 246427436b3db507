// Stand-in (tests/heuristics/test_java_class.py): Kafka's Cluster, its five-argument constructor and the reads.
package org.apache.kafka.common;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class Cluster {
    private final Map<String, List<PartitionInfo>> byTopic = new HashMap<>();

    public Cluster(String clusterId, Collection<Node> nodes, Collection<PartitionInfo> partitions,
                   Set<String> unauthorizedTopics, Set<String> internalTopics) {
        for (PartitionInfo p : partitions)
            byTopic.computeIfAbsent(p.topic(), t -> new ArrayList<>()).add(p);
    }

    public List<PartitionInfo> partitionsForTopic(String topic) {
        return byTopic.getOrDefault(topic, Collections.emptyList());
    }

    public Integer partitionCountForTopic(String topic) {
        List<PartitionInfo> partitions = byTopic.get(topic);
        return partitions == null ? null : partitions.size();
    }

    public Set<String> topics() {
        return byTopic.keySet();
    }
}
