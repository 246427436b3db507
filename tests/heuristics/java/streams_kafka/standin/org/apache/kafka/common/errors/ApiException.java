// Stand-in for Kafka's ApiException (a RuntimeException), for the differential test.
package org.apache.kafka.common.errors;

public class ApiException extends RuntimeException {
    public ApiException(String message) {
        super(message);
    }

    public ApiException(String message, Throwable cause) {
        super(message, cause);
    }
}
