import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Prints the iteration order of java.util.HashMap / HashSet for cases read from stdin, one per line:
 * {@code MODE <tab> KIND <tab> OP <tab> OP ...}, MODE one of {@code default}, {@code cap:N}, {@code copy},
 * {@code setcopy}; KIND {@code string} or {@code tp} (Kafka's TopicPartition hashCode); each OP {@code +KEY} (put),
 * {@code *KEY} (computeIfAbsent; default and cap modes) or {@code -KEY} with KEY as hex of its UTF-16BE code units (tp: topic and partition split by ':').
 * Each output line is the keys in iteration order, tab-separated, in the same encoding.
 * tests/heuristics/test_java_order.py compiles and runs it against heuristics/java_order.py.
 */
public final class HashOrder {
    /** Kafka's TopicPartition equality and hashCode (clients/.../common/TopicPartition.java at 1eb7644). */
    static final class TopicPartition {
        final String topic;
        final int partition;
        TopicPartition(String topic, int partition) { this.topic = topic; this.partition = partition; }
        @Override public int hashCode() {
            final int prime = 31;
            int result = prime + partition;
            result = prime * result + Objects.hashCode(topic);
            return result;
        }
        @Override public boolean equals(Object o) {
            if (!(o instanceof TopicPartition)) return false;
            TopicPartition other = (TopicPartition) o;
            return partition == other.partition && Objects.equals(topic, other.topic);
        }
        @Override public String toString() { return hex(topic) + ":" + partition; }
    }

    static String unhex(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return new String(bytes, StandardCharsets.UTF_16BE);
    }

    static String hex(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_16BE)) out.append(String.format("%02x", b & 0xff));
        return out.toString();
    }

    static Object key(String kind, String encoded) {
        if (kind.equals("tp")) {
            int colon = encoded.indexOf(':');
            return new TopicPartition(unhex(encoded.substring(0, colon)), Integer.parseInt(encoded.substring(colon + 1)));
        }
        return unhex(encoded);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            String[] fields = line.split("\t", -1);
            String mode = fields[0], kind = fields[1];
            List<Object> added = new ArrayList<>();
            for (int i = 2; i < fields.length; i++) if (fields[i].startsWith("+")) added.add(key(kind, fields[i].substring(1)));
            Iterable<Object> order;
            if (mode.equals("copy")) {
                Map<Object, Boolean> source = new LinkedHashMap<>();
                for (Object k : added) source.put(k, true);
                order = new HashMap<>(source).keySet();
            } else if (mode.equals("setcopy")) {
                order = new HashSet<>(added);
            } else {
                Map<Object, Boolean> map = mode.equals("default") ? new HashMap<>() : new HashMap<>(Integer.parseInt(mode.substring(4)));
                for (int i = 2; i < fields.length; i++) {
                    Object k = key(kind, fields[i].substring(1));
                    if (fields[i].startsWith("+")) map.put(k, true);
                    else if (fields[i].startsWith("*")) map.computeIfAbsent(k, x -> true);
                    else map.remove(k);
                }
                order = map.keySet();
            }
            StringBuilder row = new StringBuilder();
            for (Object k : order) {
                if (row.length() > 0) row.append('\t');
                row.append(k instanceof String ? hex((String) k) : k.toString());
            }
            out.append(row).append('\n');
        }
        System.out.print(out);
    }
}
