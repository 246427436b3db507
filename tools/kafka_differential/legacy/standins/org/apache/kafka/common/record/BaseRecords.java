// Stand-in written for tools/kafka_differential (copied for legacy.py; not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
package org.apache.kafka.common.record;

/** Named by protocol/types (the RECORDS types) and protocol/Writable; never used by the assignors. */
public interface BaseRecords {
    int sizeInBytes();
}
