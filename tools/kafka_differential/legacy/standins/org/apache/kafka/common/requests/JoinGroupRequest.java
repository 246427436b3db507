// Stand-in written for tools/kafka_differential (copied for legacy.py; not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common.requests;

/** The two constants ConsumerGroupMetadata reads. */
public final class JoinGroupRequest {
    public static final String UNKNOWN_MEMBER_ID = "";
    public static final int UNKNOWN_GENERATION_ID = -1;

    private JoinGroupRequest() {
    }
}
