// Stand-in written for tools/kafka_differential (not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
// The same class in the package Kafka moved it to after 1eb7644 (record.internal, e.g. at d79bd50).
package org.apache.kafka.common.record.internal;

import java.nio.ByteBuffer;

/** Named by protocol/Writable; never used by the assignors. */
public class UnalignedMemoryRecords implements BaseRecords {
    private final ByteBuffer buffer;

    public UnalignedMemoryRecords(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    @Override
    public int sizeInBytes() {
        return buffer.remaining();
    }
}
