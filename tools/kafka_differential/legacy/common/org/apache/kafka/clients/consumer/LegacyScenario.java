// Written for tools/kafka_differential/legacy.py (not Kafka's file): what the legacy drivers share, whatever
// the release's assignor API (PartitionAssignor before 2.4, ConsumerPartitionAssignor since).
//
// Protocol (JSON lines, UTF-8): one request per line,
//     {"id": ANY, "scenario": SCENARIO, "assignor": "sticky" | "cooperative-sticky", "user_data": "v0" | "v1"}
// (SCENARIO: the project's format, docs/formats.md: topics, members with topics, owned, generation; racks and
// instance ids are not read: no release before 3.5 gives them to these assignors); one answer per line,
//     {"id": ANY, "assignment": {member: {topic: [partition, ...]}}} or {"id": ANY, "error": "Class: message"}.
package org.apache.kafka.clients.consumer;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.ArrayOf;
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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;

final class LegacyScenario {
    static final ObjectMapper MAPPER = new ObjectMapper();

    // StickyAssignor's user data schemas (the same field names from 0.11 to 4.x), rebuilt field for field.
    private static final Schema TOPIC_ASSIGNMENT = new Schema(
            new Field("topic", Type.STRING),
            new Field("partitions", new ArrayOf(Type.INT32)));
    private static final Schema USER_DATA_V0 = new Schema(
            new Field("previous_assignment", new ArrayOf(TOPIC_ASSIGNMENT)));
    private static final Schema USER_DATA_V1 = new Schema(
            new Field("previous_assignment", new ArrayOf(TOPIC_ASSIGNMENT)),
            new Field("generation", Type.INT32));

    private LegacyScenario() {
    }

    static final class Member {
        final String id;
        final List<String> topics = new ArrayList<>();
        final List<TopicPartition> owned = new ArrayList<>(); // the scenario's order: topics, then partitions
        final Integer generation; // null: not sent

        Member(String id, JsonNode node) {
            this.id = id;
            for (JsonNode t : node.path("topics"))
                topics.add(t.asText());
            for (Iterator<Map.Entry<String, JsonNode>> it = node.path("owned").fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                for (JsonNode p : e.getValue())
                    owned.add(new TopicPartition(e.getKey(), p.asInt()));
            }
            JsonNode g = node.get("generation");
            this.generation = g == null || g.isNull() ? null : g.asInt();
        }
    }

    static Cluster cluster(JsonNode topics) {
        Map<String, Integer> counts = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = topics.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode spec = e.getValue();
            counts.put(e.getKey(), spec.isNumber() ? spec.asInt() : spec.path("partitions").asInt());
        }
        return new Cluster(counts);
    }

    /**
     * StickyAssignor's user data as its own serializer writes it: the owned partitions grouped by topic in a
     * HashMap, V1 with the generation when {@code v1} and the member has one, else V0; null when a V0 member
     * owns nothing (no user data).  {@code v1} (2.3+): CollectionUtils.groupPartitionsByTopic, whose
     * computeIfAbsent puts a new topic at the head of its bucket; else (2.0): groupDataByTopic, get then put
     * (at the tail): two topics in one bucket are written in opposite orders.
     */
    static ByteBuffer stickyUserData(Member m, boolean v1) {
        boolean withGeneration = v1 && m.generation != null;
        if (!withGeneration && m.owned.isEmpty())
            return null;
        Map<String, List<Integer>> byTopic = new HashMap<>();
        for (TopicPartition tp : m.owned) {
            if (v1) {
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
            } else {
                List<Integer> topicData = byTopic.get(tp.topic());
                if (topicData == null) {
                    topicData = new ArrayList<>();
                    byTopic.put(tp.topic(), topicData);
                }
                topicData.add(tp.partition());
            }
        }
        Schema schema = withGeneration ? USER_DATA_V1 : USER_DATA_V0;
        Struct struct = new Struct(schema);
        List<Struct> topicAssignments = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : byTopic.entrySet()) {
            Struct topicAssignment = new Struct(TOPIC_ASSIGNMENT);
            topicAssignment.set("topic", e.getKey());
            topicAssignment.set("partitions", e.getValue().toArray());
            topicAssignments.add(topicAssignment);
        }
        struct.set("previous_assignment", topicAssignments.toArray());
        if (withGeneration)
            struct.set("generation", m.generation);
        ByteBuffer buffer = ByteBuffer.allocate(schema.sizeOf(struct));
        schema.write(buffer, struct);
        buffer.flip();
        return buffer;
    }

    static void putAssignment(ObjectNode result, Collection<Member> members,
                              Map<String, ? extends Collection<TopicPartition>> answer) {
        ObjectNode assignment = result.putObject("assignment");
        Map<String, Collection<TopicPartition>> sorted = new TreeMap<>(answer);
        for (Member m : members)
            sorted.putIfAbsent(m.id, new ArrayList<>());
        for (Map.Entry<String, Collection<TopicPartition>> e : sorted.entrySet()) {
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            for (TopicPartition tp : e.getValue())
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
            ObjectNode memberNode = assignment.putObject(e.getKey());
            for (Map.Entry<String, List<Integer>> t : byTopic.entrySet()) {
                ArrayNode ps = memberNode.putArray(t.getKey());
                for (int p : t.getValue())  // a partition given twice (pre-KIP-341 duplicates) is listed twice
                    ps.add(p);
            }
        }
    }

    /**
     * The request loop: {@code run} answers one scenario (cluster, members in the scenario's order, the request),
     * returning the assignment by member, or throws.
     */
    static void serve(Runner run) throws Exception {
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
                List<Member> members = new ArrayList<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = scenario.path("members").fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> e = it.next();
                    members.add(new Member(e.getKey(), e.getValue()));
                }
                try {
                    Map<String, ? extends Collection<TopicPartition>> result =
                            run.apply(cluster(scenario.path("topics")), members, request);
                    putAssignment(answer, members, result);
                } catch (Throwable t) {
                    answer.remove("assignment");
                    answer.put("error", t.toString());
                    StackTraceElement[] trace = t.getStackTrace();
                    StringBuilder where = new StringBuilder();
                    for (int i = 0; i < Math.min(4, trace.length); i++)
                        where.append(i > 0 ? " | " : "").append(trace[i]);
                    answer.put("trace", where.toString());
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

    interface Runner {
        Map<String, ? extends Collection<TopicPartition>> apply(Cluster cluster, List<Member> members, JsonNode request)
                throws Exception;
    }
}
