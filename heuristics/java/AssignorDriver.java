// The Java side of heuristics/java_class.py: runs one ConsumerPartitionAssignor class, one JVM per command.
//
// Started as `java -cp DRIVER_CLASSES:USER_CLASSPATH assignment_oracle.AssignorDriver CLASS`.  It loads CLASS and
// answers on stdout (UTF-8, one JSON object per line):
//
//     {"ready": {"class": CLASS, "name": NAME, "protocols": ["EAGER", "COOPERATIVE"]}}   once, at start
//     {"fatal": "..."}                                  instead, and exit 3, when CLASS cannot be used
//
// then reads one scenario per line on stdin (the project's scenario JSON, docs/formats.md) and answers each with
//
//     {"assignment": {member: {topic: [partition, ...]}}}      or     {"error": "ExceptionClass: message", "at": FRAME}
//
// until stdin closes.  The assignor's own System.out goes to stderr: stdout is the protocol's.
//
// Per rebalance it plays what Kafka's ConsumerCoordinator does for every member (metadata(), at 1eb7644) and then
// what the group leader does:
//   * each member has its own fresh instance of CLASS: onAssignment(owned, ConsumerGroupMetadata(generation)) when
//     the member owned something or has a generation (what its previous SyncGroup delivered), then
//     subscriptionUserData(topics): the user data a real consumer sends (StickyAssignor's owned partitions and
//     generation, CooperativeStickyAssignor's generation);
//   * Subscription(topics, userData, ownedPartitions, generation, rack), with groupInstanceId for static members;
//     ownedPartitions are the scenario's owned under the COOPERATIVE protocol and empty under EAGER (an eager
//     member revokes everything before it joins: onJoinPrepare), as the coordinator picks the highest protocol the
//     class supports;
//   * a Cluster with every topic's partitions; each replica is a Node of its own, with the scenario's rack for it
//     when the topic gives partition racks, without a rack otherwise;
//   * a fresh leader instance's assign(cluster, GroupSubscription): a HashMap filled in the scenario's member
//     order, as the coordinator fills it in join order.
// Fresh instances per rebalance: an answer depends on the scenario alone, never on what the JVM ran before.
//
// Compiled against the user's classpath (kafka-clients 3.5 or later, or a stand-in with the same API); JSON is read
// and written here so that nothing but Kafka's API needs to be on that classpath.
package assignment_oracle;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

public final class AssignorDriver {
    /** The group id members report in ConsumerGroupMetadata (no assignor here reads it). */
    static final String GROUP_ID = "assignment-oracle";

    private final Constructor<?> constructor;
    private final boolean cooperative;

    private AssignorDriver(Constructor<?> constructor, boolean cooperative) {
        this.constructor = constructor;
        this.cooperative = cooperative;
    }

    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // what the assignor prints must not mix with the answers
        if (args.length != 1) {
            fatal(protocol, "usage: AssignorDriver CLASS");
        }
        String className = args[0];
        try { // the driver may be cached from another classpath: its Kafka API must link against this one
            linkageProbe();
        } catch (LinkageError e) {
            fatal(protocol, "the classpath's Kafka consumer API is not the one the driver needs (kafka-clients 3.5 "
                + "or later): " + e);
            return;
        }
        Constructor<?> constructor;
        ConsumerPartitionAssignor probe;
        try {
            Class<?> type = Class.forName(className);
            if (!ConsumerPartitionAssignor.class.isAssignableFrom(type)) {
                fatal(protocol, "class " + className + " does not implement " + ConsumerPartitionAssignor.class.getName());
            }
            if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
                fatal(protocol, "class " + className + " is abstract: give a concrete ConsumerPartitionAssignor");
            }
            try {
                constructor = type.getConstructor();
            } catch (NoSuchMethodException e) {
                fatal(protocol, "class " + className + " has no public no-arg constructor (Kafka's consumer needs one)");
                return;
            }
            probe = newInstance(constructor);
        } catch (ClassNotFoundException e) {
            fatal(protocol, "class " + className + " is not on the classpath");
            return;
        } catch (LinkageError e) { // the class is there, something it needs is not (or not this version)
            fatal(protocol, "class " + className + " cannot be loaded: " + e);
            return;
        } catch (Exception e) {
            fatal(protocol, "class " + className + " cannot be instantiated: " + describe(e));
            return;
        }
        boolean cooperative;
        StringBuilder ready = new StringBuilder("{\"ready\":{\"class\":");
        try {
            List<RebalanceProtocol> protocols = probe.supportedProtocols();
            cooperative = protocols.contains(RebalanceProtocol.COOPERATIVE);
            ready.append(quote(className)).append(",\"name\":").append(quote(String.valueOf(probe.name())));
            ready.append(",\"protocols\":[");
            for (int i = 0; i < protocols.size(); i++)
                ready.append(i > 0 ? "," : "").append(quote(String.valueOf(protocols.get(i))));
            ready.append("]}}");
        } catch (RuntimeException | LinkageError e) {
            fatal(protocol, "class " + className + " cannot say its name and protocols: " + describe(e));
            return;
        }
        protocol.println(ready);
        protocol.flush();
        AssignorDriver driver = new AssignorDriver(constructor, cooperative);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty())
                continue;
            String answer;
            try {
                answer = driver.rebalance(Json.parse(line));
            } catch (Throwable t) { // the assignor's failure (or a scenario it cannot take): its row's error
                answer = "{\"error\":" + quote(describe(t)) + ",\"at\":" + quote(frame(t)) + "}";
            }
            protocol.println(answer);
            protocol.flush();
        }
    }

    /** Every constructor and method of Kafka's API the driver calls, once, on dummy values. */
    private static void linkageProbe() {
        Node node = new Node(0, "broker-0", 9092, "rack");
        PartitionInfo info = new PartitionInfo("t", 0, node, new Node[] {node}, new Node[] {node});
        new Cluster(GROUP_ID, List.of(node), List.of(info), Collections.emptySet(), Collections.emptySet());
        new ConsumerGroupMetadata(GROUP_ID, 1, "m", Optional.empty());
        new Assignment(new ArrayList<>(List.of(new TopicPartition("t", 0))));
        Subscription subscription = new Subscription(List.of("t"), null, Collections.emptyList(), 1, Optional.empty());
        subscription.setGroupInstanceId(Optional.empty());
        new GroupSubscription(new HashMap<>(Map.of("m", subscription)));
    }

    private static void fatal(PrintStream protocol, String message) {
        protocol.println("{\"fatal\":" + quote(message) + "}");
        protocol.flush();
        System.exit(3);
    }

    /** A new instance, configured with an empty map if it is Configurable (as the consumer configures it). */
    private static ConsumerPartitionAssignor newInstance(Constructor<?> constructor) throws Exception {
        Object instance;
        try {
            instance = constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw unwrap(e);
        }
        try { // by reflection: Configurable is not part of the API the driver compiles against
            Class<?> configurable = Class.forName("org.apache.kafka.common.Configurable");
            if (configurable.isInstance(instance))
                configurable.getMethod("configure", Map.class).invoke(instance, new HashMap<String, Object>());
        } catch (ClassNotFoundException e) {
            // a stand-in classpath without Configurable: nothing to configure
        } catch (InvocationTargetException e) {
            throw unwrap(e);
        }
        return (ConsumerPartitionAssignor) instance;
    }

    private static Exception unwrap(InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Error)
            throw (Error) cause;
        return cause instanceof Exception ? (Exception) cause : e;
    }

    @SuppressWarnings("unchecked")
    private String rebalance(Object request) throws Exception {
        Map<String, Object> scenario = (Map<String, Object>) request;
        Map<String, Object> topics = (Map<String, Object>) scenario.get("topics");
        Map<String, Object> members = (Map<String, Object>) scenario.get("members");
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (Map.Entry<String, Object> entry : members.entrySet()) {
            String memberId = entry.getKey();
            Map<String, Object> member = (Map<String, Object>) entry.getValue();
            List<String> subscribed = new ArrayList<>();
            for (Object t : (List<Object>) member.get("topics"))
                subscribed.add((String) t);
            List<TopicPartition> owned = new ArrayList<>();
            Map<String, Object> ownedByTopic = (Map<String, Object>) member.get("owned");
            if (ownedByTopic != null) {
                for (Map.Entry<String, Object> o : ownedByTopic.entrySet())
                    for (Object p : (List<Object>) o.getValue())
                        owned.add(new TopicPartition(o.getKey(), ((Number) p).intValue()));
            }
            Object generation = member.get("generation");
            int generationId = generation == null ? -1 : ((Number) generation).intValue();
            Optional<String> rack = Optional.ofNullable((String) member.get("rack"));
            Optional<String> instanceId = Optional.ofNullable((String) member.get("instance_id"));
            ConsumerPartitionAssignor own = newInstance(constructor);
            if (!owned.isEmpty() || generation != null) {
                own.onAssignment(new Assignment(new ArrayList<>(owned)),
                    new ConsumerGroupMetadata(GROUP_ID, generationId, memberId, instanceId));
            }
            ByteBuffer userData = own.subscriptionUserData(new HashSet<>(subscribed));
            Subscription subscription = new Subscription(subscribed, userData,
                cooperative ? owned : Collections.emptyList(), generationId, rack);
            subscription.setGroupInstanceId(instanceId);
            subscriptions.put(memberId, subscription);
        }
        GroupAssignment answer = newInstance(constructor).assign(cluster(topics), new GroupSubscription(subscriptions));
        if (answer == null || answer.groupAssignment() == null)
            throw new IllegalStateException("assign returned no GroupAssignment");
        return assignmentJson(answer.groupAssignment());
    }

    @SuppressWarnings("unchecked")
    private static Cluster cluster(Map<String, Object> topics) {
        List<Node> nodes = new ArrayList<>();
        List<PartitionInfo> partitions = new ArrayList<>();
        for (Map.Entry<String, Object> entry : topics.entrySet()) {
            String topic = entry.getKey();
            Object spec = entry.getValue();
            List<Object> racks = null;
            int count;
            if (spec instanceof Number) {
                count = ((Number) spec).intValue();
            } else {
                Map<String, Object> fields = (Map<String, Object>) spec;
                count = ((Number) fields.get("partitions")).intValue();
                racks = (List<Object>) fields.get("racks");
            }
            for (int p = 0; p < count; p++) {
                Node[] replicas;
                if (racks == null) {
                    replicas = new Node[] {new Node(nodes.size(), "broker-" + nodes.size(), 9092)};
                    nodes.add(replicas[0]);
                } else {
                    List<Object> partitionRacks = (List<Object>) racks.get(p);
                    replicas = new Node[partitionRacks.size()];
                    for (int r = 0; r < replicas.length; r++) {
                        replicas[r] = new Node(nodes.size(), "broker-" + nodes.size(), 9092, (String) partitionRacks.get(r));
                        nodes.add(replicas[r]);
                    }
                }
                Node leader = replicas.length > 0 ? replicas[0] : null;
                partitions.add(new PartitionInfo(topic, p, leader, replicas, replicas));
            }
        }
        return new Cluster(GROUP_ID, nodes, partitions, Collections.emptySet(), Collections.emptySet());
    }

    /** Members and topics sorted, each member's partitions in the order the assignor gave them (twice if twice). */
    private static String assignmentJson(Map<String, Assignment> assignments) {
        StringBuilder out = new StringBuilder("{\"assignment\":{");
        boolean firstMember = true;
        for (Map.Entry<String, Assignment> e : new TreeMap<>(assignments).entrySet()) {
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            if (e.getValue() == null || e.getValue().partitions() == null)
                throw new IllegalStateException("assign gave member " + e.getKey() + " no Assignment");
            for (TopicPartition tp : e.getValue().partitions())
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
            out.append(firstMember ? "" : ",").append(quote(e.getKey())).append(":{");
            firstMember = false;
            boolean firstTopic = true;
            for (Map.Entry<String, List<Integer>> t : byTopic.entrySet()) {
                List<Integer> numbers = t.getValue();
                Collections.sort(numbers);
                out.append(firstTopic ? "" : ",").append(quote(t.getKey())).append(":[");
                firstTopic = false;
                for (int i = 0; i < numbers.size(); i++)
                    out.append(i > 0 ? "," : "").append(numbers.get(i));
                out.append(']');
            }
            out.append('}');
        }
        return out.append("}}").toString();
    }

    /** "ExceptionClass: message" on one line (the message cut at 500 characters). */
    static String describe(Throwable t) {
        String text = t.toString().replaceAll("\\s+", " ").trim();
        return text.length() <= 500 ? text : text.substring(0, 497) + "...";
    }

    /** Where it was thrown: the first stack frame outside the driver and the JDK, else the first one. */
    static String frame(Throwable t) {
        StackTraceElement[] frames = t.getStackTrace();
        for (StackTraceElement f : frames) {
            String c = f.getClassName();
            if (!c.startsWith("assignment_oracle.") && !c.startsWith("java.") && !c.startsWith("jdk.")
                && !c.startsWith("sun."))
                return f.toString();
        }
        return frames.length > 0 ? frames[0].toString() : "";
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\')
                out.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e)
                out.append(String.format("\\u%04x", (int) c));
            else
                out.append(c);
        }
        return out.append('"').toString();
    }

    /** The JSON this protocol needs: objects (insertion order kept), arrays, strings, numbers, literals. */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.at != text.length())
                throw json.error("trailing characters");
            return value;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("unreadable scenario line: " + what + " at character " + at);
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at)))
                at++;
        }

        private Object value() {
            space();
            if (at >= text.length())
                throw error("unexpected end");
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> object = new LinkedHashMap<>();
                at++;
                space();
                if (peek('}'))
                    return object;
                do {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    object.put(key, value());
                    space();
                } while (peek(','));
                expect('}');
                return object;
            }
            if (c == '[') {
                List<Object> array = new ArrayList<>();
                at++;
                space();
                if (peek(']'))
                    return array;
                do {
                    array.add(value());
                    space();
                } while (peek(','));
                expect(']');
                return array;
            }
            if (c == '"')
                return string();
            if (text.startsWith("null", at)) {
                at += 4;
                return null;
            }
            if (text.startsWith("true", at)) {
                at += 4;
                return Boolean.TRUE;
            }
            if (text.startsWith("false", at)) {
                at += 5;
                return Boolean.FALSE;
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
                at++;
            if (start == at)
                throw error("unexpected character");
            String number = text.substring(start, at);
            try {
                return Long.parseLong(number);
            } catch (NumberFormatException e) {
                return Double.parseDouble(number);
            }
        }

        private boolean peek(char c) {
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!peek(c))
                throw error("expected '" + c + "'");
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                if (at >= text.length())
                    throw error("unterminated string");
                char c = text.charAt(at++);
                if (c == '"')
                    return out.toString();
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'u':
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                        break;
                    case 'n':
                        out.append('\n');
                        break;
                    case 't':
                        out.append('\t');
                        break;
                    case 'r':
                        out.append('\r');
                        break;
                    case 'b':
                        out.append('\b');
                        break;
                    case 'f':
                        out.append('\f');
                        break;
                    default:
                        out.append(e); // \" \\ \/
                }
            }
        }
    }
}
