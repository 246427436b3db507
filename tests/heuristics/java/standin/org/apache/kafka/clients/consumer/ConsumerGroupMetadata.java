// Stand-in (tests/heuristics/test_java_class.py): Kafka's ConsumerGroupMetadata, the constructor and getters.
package org.apache.kafka.clients.consumer;

import java.util.Optional;

public class ConsumerGroupMetadata {
    private final String groupId;
    private final int generationId;
    private final String memberId;
    private final Optional<String> groupInstanceId;

    public ConsumerGroupMetadata(String groupId, int generationId, String memberId, Optional<String> groupInstanceId) {
        this.groupId = groupId;
        this.generationId = generationId;
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
    }

    public String groupId() {
        return groupId;
    }

    public int generationId() {
        return generationId;
    }

    public String memberId() {
        return memberId;
    }

    public Optional<String> groupInstanceId() {
        return groupInstanceId;
    }
}
