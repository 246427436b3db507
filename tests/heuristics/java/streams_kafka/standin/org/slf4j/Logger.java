// Stand-in for slf4j's Logger: the Streams assignor warns, Kafka's SnapshotRegistry logs at debug and error
// level; the driver drops all of it.
package org.slf4j;

public interface Logger {
    void warn(String format, Object... arguments);

    default void debug(String format, Object... arguments) { }

    default void error(String format, Object... arguments) { }
}
