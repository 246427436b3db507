// Stand-in (tests/heuristics/test_java_class.py): Kafka's Node, with and without a rack.
package org.apache.kafka.common;

public class Node {
    private final int id;
    private final String host;
    private final int port;
    private final String rack;

    public Node(int id, String host, int port) {
        this(id, host, port, null);
    }

    public Node(int id, String host, int port, String rack) {
        this.id = id;
        this.host = host;
        this.port = port;
        this.rack = rack;
    }

    public int id() {
        return id;
    }

    public boolean hasRack() {
        return rack != null;
    }

    public String rack() {
        return rack;
    }
}
