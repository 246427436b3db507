// Stand-in (tests/heuristics/test_java_class.py): Kafka's TopicPartition (a value: equals, hashCode, "topic-p").
package org.apache.kafka.common;

import java.util.Objects;

public final class TopicPartition {
    private final String topic;
    private final int partition;

    public TopicPartition(String topic, int partition) {
        this.topic = topic;
        this.partition = partition;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicPartition && ((TopicPartition) o).partition == partition
            && ((TopicPartition) o).topic.equals(topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
