// Stand-in written for tools/kafka_differential (not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common.record;

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
