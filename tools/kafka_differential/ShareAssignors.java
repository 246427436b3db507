// The share group side of tools/kafka_differential: Kafka's own SimpleAssignor (KIP-932), driven by Driver.java.
//
// A request whose assignors name "share-simple" carries a share group scenario (docs/formats.md, "Share groups
// (KIP-932)": topics with "partitions", optional "assignable" and "id"; members with "topics" and "assigned", in
// the group's order).  The group reaches Kafka's assign(GroupSpec, SubscribedTopicDescriber) as the group
// coordinator builds it at d79bd50 (files under group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
//   * memberIds(): the key set of a HashMap<String, ...> wrapped unmodifiable (modern/TargetAssignmentBuilder.java
//     :403, :418), filled as build() fills it (issue 43): from the group's members, ShareGroup's (ModernGroup's)
//     TimelineHashMap (new TimelineHashMap<>(snapshotRegistry, 0), modern/ModernGroup.java:135), Kafka's own,
//     put in the scenario's member order (the join order) and iterated; with "server_orders" {"joining": "last"}
//     the last member, when it holds nothing, joins: the heartbeating member that
//     GroupMetadataManager.maybeUpdateShareGroupTargetAssignment adds to UpdatedMembersAndTargetAssignmentView's
//     OverlayMap, iterated after the group's members; {"members": "hash"}: the HashMap filled straight in the
//     scenario's order (the tool's order before issue 43);
//   * subscribedTopicIds(): as TopicIds iterates: the member's names in new HashSet<>(names) order
//     (modern/share/ShareGroupMember.java:123), mapped to ids; size() counts the names;
//   * subscriptionType(): from topic names, as ModernGroup.subscriptionType: HOMOGENEOUS when every subscribed
//     name has every member (no names at all: HOMOGENEOUS);
//   * partitions(): the member's current assignment as Assignment.fromRecord builds it: Collectors.toMap, i.e. a
//     HashMap<Uuid, Set<Integer>> filled in topic name order, each value new HashSet<>(ascending partitions),
//     wrapped unmodifiable; Map.of() (Assignment.EMPTY) when it holds nothing;
//   * isPartitionAssignable(): GroupSpecImpl's rule with the allowed map present (share groups:
//     withTopicAssignablePartitionsMap): a topic with "assignable" allows those partitions, one without allows all;
//   * the describer: numPartitions per topic id, -1 for an unknown one; no racks (SimpleAssignor reads none).
// The answer: {"assignment": {member: {topic: [partitions]}}, "subscription_type": ...} or {"error": ...}.
// SimpleAssignor is loaded by name, so this file compiles against a Kafka without it (the answer is then an error).
package org.apache.kafka.clients.consumer;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.MemberAssignmentImpl;
import org.apache.kafka.timeline.TimelineHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

final class ShareAssignors {
    static final String[] NAMES = {"share-simple"};
    static final String SIMPLE_ASSIGNOR = "org.apache.kafka.coordinator.group.assignor.SimpleAssignor";

    private ShareAssignors() {
    }

    static final class MemberSpec implements MemberSubscription, MemberAssignment {
        private final Optional<String> rackId;
        private final Set<Uuid> subscribedTopicIds;
        private final Map<Uuid, Set<Integer>> partitions;

        MemberSpec(Optional<String> rackId, Set<Uuid> subscribedTopicIds, Map<Uuid, Set<Integer>> partitions) {
            this.rackId = rackId;
            this.subscribedTopicIds = subscribedTopicIds;
            this.partitions = partitions;
        }

        @Override
        public Optional<String> rackId() {
            return rackId;
        }

        @Override
        public Optional<String> instanceId() {
            return Optional.empty();
        }

        @Override
        public Set<Uuid> subscribedTopicIds() {
            return subscribedTopicIds;
        }

        @Override
        public Map<Uuid, Set<Integer>> partitions() {
            return partitions;
        }
    }

    static final class Spec implements GroupSpec {
        private final Map<String, MemberSpec> members;
        private final SubscriptionType subscriptionType;
        private final Map<Uuid, Set<Integer>> allowed; // topic id -> assignable partitions (absent: all)

        Spec(Map<String, MemberSpec> members, SubscriptionType subscriptionType, Map<Uuid, Set<Integer>> allowed) {
            this.members = Collections.unmodifiableMap(members);
            this.subscriptionType = subscriptionType;
            this.allowed = allowed;
        }

        @Override
        public Collection<String> memberIds() {
            return members.keySet();
        }

        @Override
        public SubscriptionType subscriptionType() {
            return subscriptionType;
        }

        @Override
        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            return false; // not read by SimpleAssignor
        }

        // No @Override: GroupSpec has it only since KAFKA-19344.
        public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
            Set<Integer> partitions = allowed.get(topicId);
            return partitions == null || partitions.contains(partitionId);
        }

        @Override
        public MemberSubscription memberSubscription(String memberId) {
            MemberSpec member = members.get(memberId);
            if (member == null)
                throw new IllegalArgumentException("Member Id " + memberId + " not found.");
            return member;
        }

        @Override
        public MemberAssignment memberAssignment(String memberId) {
            MemberSpec member = members.get(memberId);
            if (member == null)
                return new MemberAssignmentImpl(Map.of());
            return member;
        }
    }

    static final class Describer implements SubscribedTopicDescriber {
        private final Map<Uuid, Integer> counts;

        Describer(Map<Uuid, Integer> counts) {
            this.counts = counts;
        }

        @Override
        public int numPartitions(Uuid topicId) {
            Integer count = counts.get(topicId);
            return count == null ? -1 : count;
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            return Set.of();
        }
    }

    static final class Group {
        final Map<String, Uuid> ids = new LinkedHashMap<>();
        final Map<Uuid, String> names = new HashMap<>();
        final Spec spec;
        final Describer describer;

        Group(JsonNode scenario, ServerAssignors.Orders orders) {
            JsonNode topics = scenario.path("topics");
            Map<Uuid, Integer> counts = new HashMap<>();
            Map<Uuid, Set<Integer>> allowed = new HashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = topics.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode spec = e.getValue();
                int count = spec.isNumber() ? spec.asInt() : spec.path("partitions").asInt();
                JsonNode idNode = spec.isObject() ? spec.get("id") : null;
                if (idNode == null || idNode.isNull())
                    throw new IllegalArgumentException("topic " + e.getKey() + " has no \"id\" (SimpleAssignor needs one)");
                Uuid id = Uuid.fromString(idNode.asText());
                if (!id.toString().equals(idNode.asText()))
                    throw new IllegalArgumentException("topic " + e.getKey() + ": " + idNode.asText() + " is not as Uuid.toString() prints it");
                if (names.put(id, e.getKey()) != null)
                    throw new IllegalArgumentException("topic id " + id + " given twice");
                ids.put(e.getKey(), id);
                counts.put(id, count);
                JsonNode assignable = spec.isObject() ? spec.get("assignable") : null;
                if (assignable != null && !assignable.isNull()) {
                    Set<Integer> set = new HashSet<>();
                    for (JsonNode p : assignable)
                        set.add(p.asInt());
                    allowed.put(id, set);
                }
            }
            this.describer = new Describer(counts);

            List<String> memberIds = new ArrayList<>();
            scenario.path("members").fieldNames().forEachRemaining(memberIds::add);
            Map<String, Integer> subscribedTopicNames = new HashMap<>();
            Map<String, MemberSpec> joined = new LinkedHashMap<>();
            for (String memberId : memberIds) {
                JsonNode member = scenario.path("members").get(memberId);
                List<String> list = new ArrayList<>();
                for (JsonNode t : member.path("topics"))
                    list.add(t.asText());
                Set<String> subscribedNames = new HashSet<>(list);
                for (String t : subscribedNames)
                    subscribedTopicNames.merge(t, 1, Integer::sum);
                Set<Uuid> resolved = new LinkedHashSet<>();
                for (String name : subscribedNames) {
                    Uuid id = ids.get(name);
                    if (id != null)
                        resolved.add(id);
                }
                Set<Uuid> subscribed = new AbstractSet<Uuid>() {
                    @Override
                    public Iterator<Uuid> iterator() {
                        return Collections.unmodifiableSet(resolved).iterator();
                    }

                    @Override
                    public int size() {
                        return subscribedNames.size();
                    }

                    @Override
                    public boolean contains(Object o) {
                        return resolved.contains(o);
                    }
                };
                Map<Uuid, Set<Integer>> partitions = Map.of();
                JsonNode assigned = member.get("assigned");
                if (assigned != null && !assigned.isNull()) {
                    TreeMap<String, TreeSet<Integer>> byName = new TreeMap<>();
                    for (Iterator<Map.Entry<String, JsonNode>> it = assigned.fields(); it.hasNext();) {
                        Map.Entry<String, JsonNode> e = it.next();
                        TreeSet<Integer> ps = new TreeSet<>();
                        for (JsonNode p : e.getValue())
                            ps.add(p.asInt());
                        if (!ps.isEmpty())
                            byName.put(e.getKey(), ps);
                    }
                    if (!byName.isEmpty()) {
                        Map<Uuid, Set<Integer>> map = new HashMap<>();
                        for (Map.Entry<String, TreeSet<Integer>> e : byName.entrySet())
                            map.put(ids.get(e.getKey()), new HashSet<>(new ArrayList<>(e.getValue())));
                        partitions = Collections.unmodifiableMap(map);
                    }
                }
                JsonNode rack = member.get("rack");
                joined.put(memberId, new MemberSpec(
                    rack == null || rack.isNull() ? Optional.empty() : Optional.of(rack.asText()), subscribed, partitions));
            }
            Map<String, MemberSpec> memberSpecs = new HashMap<>();
            if (orders.membersInScenarioOrder) {
                memberSpecs.putAll(joined);
            } else {
                String last = memberIds.isEmpty() ? null : memberIds.get(memberIds.size() - 1);
                String joining = orders.lastJoins && last != null && joined.get(last).partitions.isEmpty() ? last : null;
                TimelineHashMap<String, MemberSpec> group = new TimelineHashMap<>(ServerAssignors.snapshotRegistry(), 0);
                joined.forEach((id, spec) -> {
                    if (!id.equals(joining))
                        group.put(id, spec);
                });
                group.forEach(memberSpecs::put);
                if (joining != null)
                    memberSpecs.put(joining, joined.get(joining));
            }
            SubscriptionType type = SubscriptionType.HOMOGENEOUS;
            for (int count : subscribedTopicNames.values())
                if (count != memberIds.size())
                    type = SubscriptionType.HETEROGENEOUS;
            this.spec = new Spec(memberSpecs, type, allowed);
        }
    }

    /** {"assignment": {member: {topic: [partitions]}}, "subscription_type": ...} or {"error": ..., "trace": ...}. */
    static ObjectNode run(ObjectMapper mapper, String name, JsonNode scenario, ServerAssignors.Orders orders) {
        ObjectNode result = mapper.createObjectNode();
        try {
            Group group = new Group(scenario, orders);
            PartitionAssignor assignor = (PartitionAssignor) Class.forName(SIMPLE_ASSIGNOR).getDeclaredConstructor().newInstance();
            GroupAssignment answer = assignor.assign(group.spec, group.describer);
            ObjectNode assignment = result.putObject("assignment");
            Map<String, Map<String, TreeSet<Integer>>> sorted = new TreeMap<>();
            scenario.path("members").fieldNames().forEachRemaining(m -> sorted.put(m, new TreeMap<>()));
            for (Map.Entry<String, MemberAssignment> e : answer.members().entrySet()) {
                Map<String, TreeSet<Integer>> byTopic = sorted.computeIfAbsent(e.getKey(), k -> new TreeMap<>());
                for (Map.Entry<Uuid, Set<Integer>> t : e.getValue().partitions().entrySet()) {
                    String topic = group.names.get(t.getKey());
                    if (topic == null)
                        throw new IllegalStateException("the assignor answered an unknown topic id " + t.getKey());
                    if (!t.getValue().isEmpty())
                        byTopic.computeIfAbsent(topic, k -> new TreeSet<>()).addAll(t.getValue());
                }
            }
            for (Map.Entry<String, Map<String, TreeSet<Integer>>> e : sorted.entrySet()) {
                ObjectNode memberNode = assignment.putObject(e.getKey());
                for (Map.Entry<String, TreeSet<Integer>> t : e.getValue().entrySet()) {
                    ArrayNode ps = memberNode.putArray(t.getKey());
                    for (int p : t.getValue())
                        ps.add(p);
                }
            }
            result.put("subscription_type", group.spec.subscriptionType() == SubscriptionType.HOMOGENEOUS
                ? "homogeneous" : "heterogeneous");
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException && t.getCause() != null ? t.getCause() : t;
            result.removeAll();
            result.put("error", cause.toString());
            result.put("trace", Driver.trace(cause));
        }
        return result;
    }
}
