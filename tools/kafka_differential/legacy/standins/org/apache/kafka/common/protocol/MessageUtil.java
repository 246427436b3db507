// Stand-in written for tools/kafka_differential (copied for legacy.py; not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common.protocol;

/** The two constants protocol/types/Struct imports. */
public final class MessageUtil {
    public static final long UNSIGNED_INT_MAX = 4294967295L;
    public static final int UNSIGNED_SHORT_MAX = 65535;

    private MessageUtil() {
    }
}
