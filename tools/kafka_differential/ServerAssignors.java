// The server side of tools/kafka_differential: Kafka's KIP-848 group coordinator assignors
// (org.apache.kafka.coordinator.group.assignor.UniformAssignor and RangeAssignor), called through their public
// assign(GroupSpec, SubscribedTopicDescriber) with minimal implementations of the group-coordinator-api
// interfaces written here. Kafka's own implementations (GroupSpecImpl, MemberSubscriptionAndAssignmentImpl,
// SubscribedTopicDescriberImpl, TopicIds, Assignment; group-coordinator module, package modern) pull in the
// metadata image and generated record classes; these stand-ins reproduce what the assignors can observe of
// them at 1eb7644, including the iteration orders (line numbers below at 1eb7644). d79bd50 (2026-08) is the same
// in all these respects: TargetAssignmentBuilder.build still fills a HashMap (line 403), setSubscribedTopicNames
// a HashSet (ConsumerGroupMember.java:163), ModernGroup.subscriptionType counts names (line 527, byNameCount),
// Assignment.fromRecord uses Collectors.toMap and HashSets (line 86); Assignment.EMPTY became Map.of() (empty
// either way), and GroupSpec gained isPartitionAssignable (share groups; true here, as GroupSpecImpl for a
// consumer group):
//
// * GroupSpec.memberIds() is the key set of a HashMap<String, ...> (TargetAssignmentBuilder.build, line 329:
//   memberSpecs = new HashMap<>(), wrapped unmodifiable at line 376) filled in the order the group's members
//   iterate: Kafka's own TimelineHashMap (ModernGroup.members) put in the scenario's member order (the join
//   order), with a joining member after them (request "server_orders": {"joining": "last"}: the last member
//   of the scenario when it claims nothing); coordinatorOrder below;
// * GroupSpec.subscriptionType() as ModernGroup.subscriptionType (line 535) computes it from the subscribed
//   topic NAMES, a topic that does not exist included: HOMOGENEOUS when every name has every member;
// * MemberSubscription.subscribedTopicIds() iterates as Kafka's TopicIds does: the member's topic names in the
//   order of a HashSet<String> (ConsumerGroupMember.Builder.setSubscribedTopicNames: new HashSet<>(list)),
//   each mapped to its id, names without a topic skipped (TopicIdIterator.hasNext);
// * MemberAssignment.partitions() (the previous target assignment) is an unmodifiable HashMap<Uuid, Set<Integer>>
//   with HashSet<Integer> values (Assignment: Collections.unmodifiableMap; Assignment.fromRecord:
//   Collectors.toMap, new HashSet<>(partitions)), filled in topic name order; a member with none gets
//   Collections.emptyMap() (Assignment.EMPTY); isPartitionAssigned reads the same owners;
// * SubscribedTopicDescriber.numPartitions: -1 for an unknown id; racksForPartition: the scenario's replica
//   racks (Kafka's SubscribedTopicDescriberImpl returns an empty set at 1eb7644; neither assignor calls it).
//
// The previous target assignment comes from the scenario's claims ("owned"): per partition, the claim with the
// highest generation wins (no generation counts as -1) and a tie at the top leaves it unowned, claims on unknown
// topics or partitions are dropped (the port's problem/claims.py, steps 1-3). A winning claim on a topic the
// member no longer subscribes to stays in its assignment: Kafka's builders drop it themselves.
//
// For the diagnosis of differences, three switches (request field "server_orders") replace one of Kafka's
// orders by the port's (sorted) one: "members": "sorted" (a LinkedHashMap in member id order instead of the
// HashMap) or "hash" (the HashMap filled straight in the scenario's order, as this tool did before issue 43), "topic_ids": "names" (topic k in name order gets Uuid(0, k + 2), so every hash order and
// Uuid.compareTo follow the names) or "compare-names" (topic k in name order gets Uuid(k + 1, the given id's
// low 64 bits): Uuid.compareTo follows the names, hash orders stay random), "assignment_maps": "names"
// (previous assignments as LinkedHashMaps in topic name order).
package org.apache.kafka.clients.consumer;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.MemberAssignmentImpl;
import org.apache.kafka.timeline.SnapshotRegistry;
import org.apache.kafka.timeline.TimelineHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

final class ServerAssignors {
    static final String[] NAMES = {"uniform", "server-range"};

    private ServerAssignors() {
    }

    /** Which of Kafka's orders to replace by the port's (diagnosis only; all false is Kafka's behaviour). */
    static final class Orders {
        final boolean sortedMembers;
        /** "hash": memberSpecs filled straight in the scenario's member order (the tool's order before issue 43). */
        final boolean membersInScenarioOrder;
        /** The last member of the scenario joins (the overlay's addition) when it claims nothing. */
        final boolean lastJoins;
        final boolean idsByName;
        final boolean idsCompareByName;
        final boolean assignmentMapsByName;

        Orders(JsonNode node) {
            sortedMembers = "sorted".equals(node.path("members").asText("coordinator"));
            membersInScenarioOrder = "hash".equals(node.path("members").asText("coordinator"));
            lastJoins = "last".equals(node.path("joining").asText("none"));
            idsByName = "names".equals(node.path("topic_ids").asText("given"));
            idsCompareByName = "compare-names".equals(node.path("topic_ids").asText("given"));
            assignmentMapsByName = "names".equals(node.path("assignment_maps").asText("hash"));
        }
    }

    /** A topic of the scenario. */
    static final class Topic {
        final String name;
        final Uuid id;
        final int partitions;
        final JsonNode racks; // null: no rack information

        Topic(String name, Uuid id, int partitions, JsonNode racks) {
            this.name = name;
            this.id = id;
            this.partitions = partitions;
            this.racks = racks;
        }
    }

    /** MemberSubscription and MemberAssignment of one member (as Kafka's MemberSubscriptionAndAssignmentImpl). */
    static final class MemberSpec implements MemberSubscription, MemberAssignment {
        private final Optional<String> rackId;
        private final Optional<String> instanceId;
        private final Set<Uuid> subscribedTopicIds;
        private final Map<Uuid, Set<Integer>> partitions;

        MemberSpec(Optional<String> rackId, Optional<String> instanceId, Set<Uuid> subscribedTopicIds,
                   Map<Uuid, Set<Integer>> partitions) {
            this.rackId = rackId;
            this.instanceId = instanceId;
            this.subscribedTopicIds = Collections.unmodifiableSet(subscribedTopicIds);
            this.partitions = partitions;
        }

        @Override
        public Optional<String> rackId() {
            return rackId;
        }

        @Override
        public Optional<String> instanceId() {
            return instanceId;
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

    /** GroupSpec (as Kafka's GroupSpecImpl). */
    static final class Spec implements GroupSpec {
        private final Map<String, MemberSpec> members;
        private final SubscriptionType subscriptionType;
        private final Map<Uuid, Map<Integer, String>> invertedMemberAssignment;

        Spec(Map<String, MemberSpec> members, SubscriptionType subscriptionType,
             Map<Uuid, Map<Integer, String>> invertedMemberAssignment) {
            this.members = Collections.unmodifiableMap(members);
            this.subscriptionType = subscriptionType;
            this.invertedMemberAssignment = invertedMemberAssignment;
        }

        @Override
        public java.util.Collection<String> memberIds() {
            return members.keySet();
        }

        @Override
        public SubscriptionType subscriptionType() {
            return subscriptionType;
        }

        @Override
        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            Map<Integer, String> partitionMap = invertedMemberAssignment.get(topicId);
            return partitionMap != null && partitionMap.containsKey(partitionId);
        }

        // GroupSpec.isPartitionAssignable (after 1eb7644, for share groups; no @Override so that 1eb7644's
        // GroupSpec, which lacks it, compiles too): GroupSpecImpl answers true for a consumer group (no
        // topicAssignablePartitionsMap); neither assignor calls it.
        public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
            return true;
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
                return new MemberAssignmentImpl(Collections.emptyMap());
            return member;
        }
    }

    /** SubscribedTopicDescriber over the scenario's topics. */
    static final class Describer implements SubscribedTopicDescriber {
        private final Map<Uuid, Topic> topics;

        Describer(Map<Uuid, Topic> topics) {
            this.topics = topics;
        }

        @Override
        public int numPartitions(Uuid topicId) {
            Topic topic = topics.get(topicId);
            return topic == null ? -1 : topic.partitions;
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            Topic topic = topics.get(topicId);
            if (topic == null || topic.racks == null || topic.racks.isNull() || partition < 0 || partition >= topic.partitions)
                return Collections.emptySet();
            Set<String> racks = new HashSet<>();
            for (JsonNode r : topic.racks.get(partition))
                racks.add(r.asText());
            return racks;
        }
    }

    /** The scenario as Kafka's group coordinator would hand it to an assignor. */
    static final class Group {
        final Map<String, Topic> topicsByName = new LinkedHashMap<>();
        final Map<Uuid, Topic> topicsById = new HashMap<>();
        final Spec spec;
        final Describer describer;

        Group(JsonNode topicsNode, List<Driver.Member> members, Orders orders) {
            List<String> names = new ArrayList<>();
            topicsNode.fieldNames().forEachRemaining(names::add);
            List<String> byName = new ArrayList<>(names);
            Collections.sort(byName);
            for (String name : names) {
                JsonNode spec = topicsNode.get(name);
                int count = spec.isNumber() ? spec.asInt() : spec.path("partitions").asInt();
                Uuid id;
                if (orders.idsByName) {
                    id = new Uuid(0L, 2L + byName.indexOf(name)); // past ZERO_UUID and ONE_UUID (reserved)
                } else {
                    JsonNode idNode = spec.isObject() ? spec.get("id") : null;
                    if (idNode == null || idNode.isNull())
                        throw new IllegalArgumentException("topic " + name + " has no \"id\" (the server assignors need one)");
                    id = Uuid.fromString(idNode.asText());
                    if (!id.toString().equals(idNode.asText()))
                        throw new IllegalArgumentException("topic " + name + ": " + idNode.asText() + " is not as Uuid.toString() prints it");
                    if (orders.idsCompareByName)
                        id = new Uuid(1L + byName.indexOf(name), id.getLeastSignificantBits());
                }
                Topic topic = new Topic(name, id, count, spec.isObject() ? spec.get("racks") : null);
                topicsByName.put(name, topic);
                if (topicsById.put(id, topic) != null)
                    throw new IllegalArgumentException("topic id " + id + " given twice");
            }
            this.describer = new Describer(topicsById);

            // The previous target assignment: the claims resolved (highest generation wins, a tie leaves it unowned).
            Map<TopicPartition, String> owner = new HashMap<>();
            Map<TopicPartition, Integer> ownerGeneration = new HashMap<>();
            Set<TopicPartition> tied = new HashSet<>();
            for (Driver.Member m : members) {
                Set<TopicPartition> seen = new HashSet<>();
                for (TopicPartition tp : m.owned) {
                    Topic topic = topicsByName.get(tp.topic());
                    if (topic == null || tp.partition() < 0 || tp.partition() >= topic.partitions || !seen.add(tp))
                        continue;
                    int generation = m.generationId();
                    Integer best = ownerGeneration.get(tp);
                    if (best == null || generation > best) {
                        owner.put(tp, m.id);
                        ownerGeneration.put(tp, generation);
                        tied.remove(tp);
                    } else if (generation == best) {
                        tied.add(tp);
                    }
                }
            }
            Map<String, Map<String, TreeSet<Integer>>> previous = new HashMap<>(); // member -> topic name -> partitions
            Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
            for (Map.Entry<TopicPartition, String> e : owner.entrySet()) {
                TopicPartition tp = e.getKey();
                if (tied.contains(tp))
                    continue;
                previous.computeIfAbsent(e.getValue(), k -> new TreeMap<>())
                    .computeIfAbsent(tp.topic(), k -> new TreeSet<>()).add(tp.partition());
                inverted.computeIfAbsent(topicsByName.get(tp.topic()).id, k -> new HashMap<>()).put(tp.partition(), e.getValue());
            }

            // Subscription type from the topic names (ModernGroup.subscriptionType).
            Map<String, Integer> subscribedTopicNames = new HashMap<>();
            for (Driver.Member m : members)
                for (String t : new HashSet<>(m.topics))
                    subscribedTopicNames.merge(t, 1, Integer::sum);
            SubscriptionType type = SubscriptionType.HOMOGENEOUS;
            for (int count : subscribedTopicNames.values())
                if (count != members.size())
                    type = SubscriptionType.HETEROGENEOUS;

            Map<String, MemberSpec> memberSpecs = orders.sortedMembers ? new LinkedHashMap<>() : new HashMap<>();
            for (Driver.Member m : orders.sortedMembers || orders.membersInScenarioOrder ? members
                    : coordinatorOrder(members, orders.lastJoins)) {
                // Iterates as TopicIds does over new HashSet<>(names), skipping names that do not resolve, and
                // like TopicIds answers size() with the number of names (modern/TopicIds.java), which sizes
                // the homogeneous builder's new HashSet<>(subscribedTopicIds()).
                Set<String> subscribedNames = new HashSet<>(m.topics);
                Set<Uuid> resolved = new LinkedHashSet<>();
                for (String name : subscribedNames) {
                    Topic topic = topicsByName.get(name);
                    if (topic != null)
                        resolved.add(topic.id);
                }
                Set<Uuid> subscribed = new java.util.AbstractSet<Uuid>() {
                    @Override
                    public java.util.Iterator<Uuid> iterator() {
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
                Map<Uuid, Set<Integer>> partitions = Collections.emptyMap();
                Map<String, TreeSet<Integer>> mine = previous.get(m.id);
                if (mine != null) {
                    Map<Uuid, Set<Integer>> map = orders.assignmentMapsByName ? new LinkedHashMap<>() : new HashMap<>();
                    for (Map.Entry<String, TreeSet<Integer>> e : mine.entrySet())
                        map.put(topicsByName.get(e.getKey()).id, new HashSet<>(new ArrayList<>(e.getValue())));
                    partitions = Collections.unmodifiableMap(map);
                }
                memberSpecs.put(m.id, new MemberSpec(m.rack, m.instanceId, subscribed, partitions));
            }
            this.spec = new Spec(memberSpecs, type, inverted);
        }

        String topicName(Uuid id) {
            Topic topic = topicsById.get(id);
            if (topic == null)
                throw new IllegalStateException("the assignor answered an unknown topic id " + id);
            return topic.name;
        }
    }

    /**
     * The members in the order TargetAssignmentBuilder.build fills memberSpecs (d79bd50 lines 403-407): the
     * group's members, ModernGroup.members, a TimelineHashMap (new TimelineHashMap<>(snapshotRegistry, 0)) put
     * in join order (the scenario's), iterated; a joining member (the heartbeating one, an OverlayMap addition
     * in UpdatedMembersAndTargetAssignmentView; at 1eb7644 updatedMembers put after members) after them.
     * Kafka's own TimelineHashMap, compiled from the same commit.
     */
    static List<Driver.Member> coordinatorOrder(List<Driver.Member> members, boolean lastJoins) {
        Driver.Member joining = lastJoins && !members.isEmpty() && members.get(members.size() - 1).owned.isEmpty()
            ? members.get(members.size() - 1) : null;
        TimelineHashMap<String, Driver.Member> group = new TimelineHashMap<>(snapshotRegistry(), 0);
        for (Driver.Member m : members)
            if (m != joining)
                group.put(m.id, m);
        List<Driver.Member> order = new ArrayList<>(group.values());
        if (joining != null)
            order.add(joining);
        return order;
    }

    /** new SnapshotRegistry(new LogContext()), LogContext wherever this commit has it (it moved after 1eb7644). */
    static SnapshotRegistry snapshotRegistry() {
        for (String name : new String[] {
            "org.apache.kafka.common.utils.internals.LogContext", "org.apache.kafka.common.utils.LogContext"}) {
            try {
                Class<?> logContext = Class.forName(name);
                return SnapshotRegistry.class.getConstructor(logContext)
                    .newInstance(logContext.getConstructor().newInstance());
            } catch (ClassNotFoundException e) {
                continue;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no LogContext in this Kafka");
    }

    static PartitionAssignor newAssignor(String name) {
        switch (name) {
            case "uniform":
                return new UniformAssignor();
            case "server-range":
                return new RangeAssignor();
            default:
                throw new IllegalArgumentException(name);
        }
    }

    /** {"assignment": {member: {topic: [partitions]}}, "subscription_type": ...} or {"error": ..., "trace": ...}. */
    static ObjectNode run(ObjectMapper mapper, String name, JsonNode topics, List<Driver.Member> members, Orders orders) {
        ObjectNode result = mapper.createObjectNode();
        try {
            Group group = new Group(topics, members, orders);
            GroupAssignment answer = newAssignor(name).assign(group.spec, group.describer);
            ObjectNode assignment = result.putObject("assignment");
            Map<String, Map<String, TreeSet<Integer>>> sorted = new TreeMap<>();
            for (Driver.Member m : members)
                sorted.put(m.id, new TreeMap<>());
            for (Map.Entry<String, MemberAssignment> e : answer.members().entrySet()) {
                Map<String, TreeSet<Integer>> byTopic = sorted.computeIfAbsent(e.getKey(), k -> new TreeMap<>());
                for (Map.Entry<Uuid, Set<Integer>> t : e.getValue().partitions().entrySet())
                    if (!t.getValue().isEmpty())
                        byTopic.computeIfAbsent(group.topicName(t.getKey()), k -> new TreeSet<>()).addAll(t.getValue());
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
            result.removeAll();
            result.put("error", t.toString());
            result.put("trace", Driver.trace(t));
        }
        return result;
    }
}
