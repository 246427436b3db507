// The Java side of tools/kafka_differential: Kafka's own client assignors, one long-lived JVM.
//
// Protocol (JSON lines on stdin/stdout, UTF-8): one request per line,
//     {"id": ANY, "scenario": SCENARIO, "assignors": [NAME, ...], "server_orders": {...}}
// where SCENARIO is the project's scenario format (docs/formats.md: topics, members with topics, owned,
// generation, rack, instance_id; a topic's "id", Kafka's Uuid as Uuid.toString() prints it, is read by the
// server assignors only), "assignors" (optional; default the four client assignors) any of range, roundrobin,
// sticky, cooperative-sticky (client) and uniform, server-range (KIP-848 group coordinator, ServerAssignors.java),
// or share-simple (KIP-932, ShareAssignors.java: the scenario is then a share group's),
// and "server_orders" (optional, diagnosis only) see ServerAssignors.Orders; one answer per line, in the same order,
//     {"id": ANY, "range": RESULT, "roundrobin": RESULT, ...}
// where RESULT is {"assignment": {member: {topic: [partition, ...]}}} (every member, partitions sorted; the server
// assignors add "subscription_type") or {"error": "ExceptionClass: message"}.  A line that cannot be read at all
// gets {"id": null, "fatal": "..."}.
//
// It lives in Kafka's package so it can use StickyAssignor's package-private user data schemas and serializer
// (as Kafka's own StickyAssignorTest does).
package org.apache.kafka.clients.consumer;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

public final class Driver {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** CooperativeStickyAssignor's private COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0, rebuilt field for field. */
    private static final Schema COOPERATIVE_USER_DATA_V0 = new Schema(new Field("generation", Type.INT32));
    private static final String[] ASSIGNORS = {"range", "roundrobin", "sticky", "cooperative-sticky"};

    private Driver() {
    }

    /** One member of the scenario, as read (also by ServerAssignors). */
    static final class Member {
        final String id;
        final List<String> topics = new ArrayList<>();
        final List<TopicPartition> owned = new ArrayList<>(); // in the scenario's order: topics, then partitions
        final Integer generation; // null: not sent
        final Optional<String> rack;
        final Optional<String> instanceId;

        Member(String id, JsonNode node) {
            this.id = id;
            for (JsonNode t : node.path("topics"))
                topics.add(t.asText());
            JsonNode ownedNode = node.path("owned");
            for (Iterator<Map.Entry<String, JsonNode>> it = ownedNode.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                for (JsonNode p : e.getValue())
                    owned.add(new TopicPartition(e.getKey(), p.asInt()));
            }
            JsonNode g = node.get("generation");
            this.generation = g == null || g.isNull() ? null : g.asInt();
            JsonNode r = node.get("rack");
            this.rack = r == null || r.isNull() ? Optional.empty() : Optional.of(r.asText());
            JsonNode i = node.get("instance_id");
            this.instanceId = i == null || i.isNull() ? Optional.empty() : Optional.of(i.asText());
        }

        int generationId() {
            return generation == null ? -1 : generation;
        }
    }

    /** The cluster: each topic's partitions, replicas on nodes whose racks are the scenario's. */
    static Cluster cluster(JsonNode topics) {
        Map<String, List<PartitionInfo>> partitions = new HashMap<>();
        int nodeId = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = topics.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            String topic = e.getKey();
            JsonNode spec = e.getValue();
            int count = spec.isNumber() ? spec.asInt() : spec.path("partitions").asInt();
            JsonNode racks = spec.isObject() ? spec.get("racks") : null;
            List<PartitionInfo> infos = new ArrayList<>(count);
            for (int p = 0; p < count; p++) {
                Node[] replicas;
                if (racks == null || racks.isNull()) {
                    replicas = new Node[] {new Node(nodeId++, "broker", 9092)}; // a replica without a rack
                } else {
                    JsonNode partitionRacks = racks.get(p);
                    replicas = new Node[partitionRacks.size()];
                    for (int r = 0; r < replicas.length; r++)
                        replicas[r] = new Node(nodeId++, "broker", 9092, partitionRacks.get(r).asText());
                }
                Node leader = replicas.length > 0 ? replicas[0] : Node.noNode();
                infos.add(new PartitionInfo(topic, p, leader, replicas, replicas));
            }
            partitions.put(topic, infos);
        }
        return new Cluster(partitions);
    }

    /** CollectionUtils.groupPartitionsByTopic as at 1eb7644 (a HashMap filled in the list's order): the class is
     *  gone from later Kafka (StickyAssignor no longer uses it), so the driver keeps its own copy. */
    static Map<String, List<Integer>> groupPartitionsByTopic(List<TopicPartition> partitions) {
        Map<String, List<Integer>> dataByTopic = new HashMap<>();
        for (TopicPartition tp : partitions)
            dataByTopic.computeIfAbsent(tp.topic(), topic -> new ArrayList<>()).add(tp.partition());
        return dataByTopic;
    }

    /** StickyAssignor's user data: its own serializer (V1) when a generation is sent, the V0 schema when not. */
    static ByteBuffer stickyUserData(Member m) {
        if (m.generation != null)
            return StickyAssignor.serializeTopicPartitionAssignment(new MemberData(m.owned, Optional.of(m.generation)));
        if (m.owned.isEmpty())
            return null; // StickyAssignor.subscriptionUserData before any assignment
        // As serializeTopicPartitionAssignment, with STICKY_ASSIGNOR_USER_DATA_V0 (no generation field).
        Struct struct = new Struct(StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0);
        List<Struct> topicAssignments = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> topicEntry : groupPartitionsByTopic(m.owned).entrySet()) {
            Struct topicAssignment = new Struct(StickyAssignor.TOPIC_ASSIGNMENT);
            topicAssignment.set(StickyAssignor.TOPIC_KEY_NAME, topicEntry.getKey());
            topicAssignment.set(StickyAssignor.PARTITIONS_KEY_NAME, topicEntry.getValue().toArray());
            topicAssignments.add(topicAssignment);
        }
        struct.set(StickyAssignor.TOPIC_PARTITIONS_KEY_NAME, topicAssignments.toArray());
        ByteBuffer buffer = ByteBuffer.allocate(StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0.sizeOf(struct));
        StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0.write(buffer, struct);
        buffer.flip();
        return buffer;
    }

    /** CooperativeStickyAssignor's user data: only read when the subscription carries no generation. */
    static ByteBuffer cooperativeUserData(Member m) {
        if (m.generation == null)
            return null;
        Struct struct = new Struct(COOPERATIVE_USER_DATA_V0);
        struct.set("generation", m.generation);
        ByteBuffer buffer = ByteBuffer.allocate(COOPERATIVE_USER_DATA_V0.sizeOf(struct));
        COOPERATIVE_USER_DATA_V0.write(buffer, struct);
        buffer.flip();
        return buffer;
    }

    static Subscription subscription(String assignor, Member m) {
        Subscription s;
        switch (assignor) {
            case "sticky":
                // Eager: the member revoked everything before joining; its claims travel in the user data.
                s = new Subscription(m.topics, stickyUserData(m), Collections.emptyList(), m.generationId(), m.rack);
                break;
            case "cooperative-sticky":
                s = new Subscription(m.topics, cooperativeUserData(m), m.owned, m.generationId(), m.rack);
                break;
            default:
                s = new Subscription(m.topics, null, m.owned, m.generationId(), m.rack);
        }
        s.setGroupInstanceId(m.instanceId);
        return s;
    }

    static ConsumerPartitionAssignor newAssignor(String name) {
        switch (name) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "sticky":
                return new StickyAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new IllegalArgumentException(name);
        }
    }

    static ObjectNode run(String name, Cluster cluster, List<Member> members) {
        ObjectNode result = MAPPER.createObjectNode();
        try {
            // Kafka's ConsumerCoordinator hands the assignor a HashMap filled in the members' join order.
            Map<String, Subscription> subscriptions = new HashMap<>();
            for (Member m : members)
                subscriptions.put(m.id, subscription(name, m));
            GroupAssignment answer = newAssignor(name).assign(cluster, new GroupSubscription(subscriptions));
            ObjectNode assignment = result.putObject("assignment");
            Map<String, Assignment> sortedMembers = new TreeMap<>(answer.groupAssignment());
            for (Member m : members)
                sortedMembers.putIfAbsent(m.id, new Assignment(Collections.emptyList()));
            for (Map.Entry<String, Assignment> e : sortedMembers.entrySet()) {
                Map<String, TreeSet<Integer>> byTopic = new TreeMap<>();
                for (TopicPartition tp : e.getValue().partitions())
                    byTopic.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition());
                ObjectNode memberNode = assignment.putObject(e.getKey());
                for (Map.Entry<String, TreeSet<Integer>> t : byTopic.entrySet()) {
                    ArrayNode ps = memberNode.putArray(t.getKey());
                    for (int p : t.getValue())
                        ps.add(p);
                }
            }
        } catch (Throwable t) {
            result.removeAll();
            result.put("error", t.toString());
            result.put("trace", trace(t));
        }
        return result;
    }

    /** The first lines of a stack trace, on one line. */
    static String trace(Throwable t) {
        StringWriter trace = new StringWriter();
        t.printStackTrace(new PrintWriter(trace));
        return firstLines(trace.toString(), 6);
    }

    private static String firstLines(String text, int n) {
        String[] lines = text.split("\n");
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(n, lines.length); i++)
            out.append(lines[i].trim()).append(i + 1 < Math.min(n, lines.length) ? " | " : "");
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty())
                continue;
            ObjectNode answer = MAPPER.createObjectNode();
            try {
                JsonNode request = MAPPER.readTree(line);
                answer.set("id", request.get("id"));
                JsonNode scenario = request.get("scenario");
                Cluster cluster = cluster(scenario.path("topics"));
                List<Member> members = new ArrayList<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = scenario.path("members").fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> e = it.next();
                    members.add(new Member(e.getKey(), e.getValue()));
                }
                List<String> names = new ArrayList<>();
                if (request.has("assignors")) {
                    for (JsonNode n : request.get("assignors"))
                        names.add(n.asText());
                } else {
                    names.addAll(List.of(ASSIGNORS));
                }
                ServerAssignors.Orders orders = new ServerAssignors.Orders(request.path("server_orders"));
                for (String name : names) {
                    if (List.of(ShareAssignors.NAMES).contains(name))
                        answer.set(name, ShareAssignors.run(MAPPER, name, scenario, orders));
                    else if (List.of(ServerAssignors.NAMES).contains(name))
                        answer.set(name, ServerAssignors.run(MAPPER, name, scenario.path("topics"), members, orders));
                    else if (List.of(ASSIGNORS).contains(name))
                        answer.set(name, run(name, cluster, members));
                    else
                        throw new IllegalArgumentException("unknown assignor " + name);
                }
            } catch (Throwable t) {
                if (!answer.has("id"))
                    answer.putNull("id");
                answer.put("fatal", t.toString());
            }
            out.write(MAPPER.writeValueAsString(answer));
            out.write('\n');
            out.flush();
        }
    }
}
