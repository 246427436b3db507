// Stand-in written for tools/kafka_differential (copied for legacy.py; not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common.record;

import java.nio.ByteBuffer;

/** Named by protocol/types (the RECORDS types) and protocol/Writable; never used by the assignors. */
public class MemoryRecords implements BaseRecords {
    private final ByteBuffer buffer;

    private MemoryRecords(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    public static MemoryRecords readableRecords(ByteBuffer buffer) {
        return new MemoryRecords(buffer);
    }

    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    @Override
    public int sizeInBytes() {
        return buffer.limit();
    }
}
