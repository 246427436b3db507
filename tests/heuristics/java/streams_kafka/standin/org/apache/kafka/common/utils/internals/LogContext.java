// Stand-in for Kafka's LogContext (common/utils/internals at d79bd502): what Kafka's SnapshotRegistry, which the
// driver builds a streams group's TimelineHashMap of members with, asks of it.
package org.apache.kafka.common.utils.internals;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class LogContext {
    public Logger logger(Class<?> type) {
        return LoggerFactory.getLogger(type);
    }
}
