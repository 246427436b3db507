// Stand-in written for tools/kafka_differential/legacy.py (not Kafka's file): named by protocol/types/Type.java
// of Kafka 0.11-2.x (Records.class.getName() in an error message); never used by the assignors.
package org.apache.kafka.common.record;

public interface Records extends BaseRecords {
}
