// Stand-in written for tools/kafka_differential (not Kafka's file): the smallest surface the client
// assignors and protocol/types use, so they compile without the rest of the client.
// The same class in the package Kafka moved it to after 1eb7644 (record.internal, e.g. at d79bd50).
package org.apache.kafka.common.record.internal;

/** Named by protocol/types (the RECORDS types) and protocol/Writable; never used by the assignors. */
public interface BaseRecords {
    int sizeInBytes();
}
