// Stand-in for slf4j's Logger: the Streams assignor only warns; the driver drops it.
package org.slf4j;

public interface Logger {
    void warn(String format, Object... arguments);
}
