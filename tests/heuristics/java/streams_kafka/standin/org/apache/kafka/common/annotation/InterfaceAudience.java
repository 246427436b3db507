// Stand-in for Kafka's annotation (only what the Streams assignor API sources name), for the differential test.
package org.apache.kafka.common.annotation;

public final class InterfaceAudience {
    public @interface Public { }
}
