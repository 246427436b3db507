// Runs Kafka's StickyTaskAssignor (sources vendored from apache/kafka d79bd502, under kafka/) on groups read
// from stdin, for tests/heuristics/test_streams_sticky.py's differential test.  One group per block:
//   G <linked|hash|coordinator|coordinator-joining> <standbyReplicas>
//                                          start a group: members in a LinkedHashMap (the order given),
//                                          a HashMap (put in the order given), or as the group coordinator
//                                          fills memberIds() (streams/TargetAssignmentBuilder.build): the
//                                          group's members, Kafka's own TimelineHashMap (StreamsGroup.members,
//                                          new TimelineHashMap<>(snapshotRegistry, 0)), put in the order given
//                                          (the join order), iterated into a HashMap; "coordinator-joining":
//                                          the last member given is the heartbeating one that joins (an
//                                          addition of UpdatedMembersAndTargetAssignmentView's OverlayMap,
//                                          iterated after the group's members)
//   S <subtopology> <tasks> <0|1>          a subtopology (stateful: 1), in TopologyDescriber order
//   M <member> <process>                   a member
//   A|B <member> <subtopology> <partition> a previous active (A) or standby (B) task of the member
//   O <member> <subtopology> <partition> <offset>   a reported task offset
//   E                                      end of the group: assign, print it
// Output per group: "a|s <member> <subtopology> <partition>" lines (sorted), then "end" (or "error <message>").
import org.apache.kafka.coordinator.group.api.streams.assignor.AssignmentConfigs;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.timeline.SnapshotRegistry;
import org.apache.kafka.timeline.TimelineHashMap;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

public class StreamsDriver {

    static final class Member implements MemberAssignmentMetadata, MemberAssignmentState {
        final String process;
        final Map<String, Set<Integer>> active = new HashMap<>();
        final Map<String, Set<Integer>> standby = new HashMap<>();
        final Map<String, Map<Integer, Long>> offsets = new HashMap<>();

        Member(String process) {
            this.process = process;
        }

        public Optional<String> instanceId() { return Optional.empty(); }
        public Optional<String> rackId() { return Optional.empty(); }
        public String processId() { return process; }
        public Map<String, String> clientTags() { return Map.of(); }
        public Map<String, Set<Integer>> activeTasks() { return active; }
        public Map<String, Set<Integer>> standbyTasks() { return standby; }
        public Map<String, Set<Integer>> warmupTasks() { return Map.of(); }
        public Map<String, Map<Integer, Long>> taskOffsets() { return offsets; }
        public Map<String, Map<Integer, Long>> taskEndOffsets() { return Map.of(); }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        Map<String, Member> members = null;
        String kind = null;
        List<String> subtopologies = new ArrayList<>();
        Map<String, Integer> tasks = new HashMap<>();
        Set<String> stateful = new HashSet<>();
        int[] replicas = {0};
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "G":
                    kind = f[1];
                    members = kind.equals("hash") ? new HashMap<>() : new LinkedHashMap<>();
                    replicas[0] = Integer.parseInt(f[2]);
                    subtopologies.clear();
                    tasks.clear();
                    stateful.clear();
                    break;
                case "S":
                    subtopologies.add(f[1]);
                    tasks.put(f[1], Integer.parseInt(f[2]));
                    if (f[3].equals("1")) stateful.add(f[1]);
                    break;
                case "M":
                    members.put(f[1], new Member(f[2]));
                    break;
                case "A":
                    members.get(f[1]).active.computeIfAbsent(f[2], k -> new HashSet<>()).add(Integer.parseInt(f[3]));
                    break;
                case "B":
                    members.get(f[1]).standby.computeIfAbsent(f[2], k -> new HashSet<>()).add(Integer.parseInt(f[3]));
                    break;
                case "O":
                    members.get(f[1]).offsets.computeIfAbsent(f[2], k -> new HashMap<>())
                        .put(Integer.parseInt(f[3]), Long.parseLong(f[4]));
                    break;
                case "E":
                    run(kind.startsWith("coordinator") ? coordinatorOrder(members, kind.equals("coordinator-joining")) : members,
                        subtopologies, tasks, stateful, replicas[0], out);
                    break;
                default:
                    throw new IllegalArgumentException("bad line: " + line);
            }
        }
        System.out.print(out);
    }

    /** memberIds() as streams/TargetAssignmentBuilder.build fills it at d79bd502 (lines 229-235): a HashMap put
     * from the group's members (a TimelineHashMap filled in join order), a joining member after them. */
    static Map<String, Member> coordinatorOrder(Map<String, Member> joined, boolean lastJoins) {
        String joining = null;
        if (lastJoins)
            for (String id : joined.keySet())
                joining = id;
        TimelineHashMap<String, Member> group = new TimelineHashMap<>(new SnapshotRegistry(new LogContext()), 0);
        for (Map.Entry<String, Member> e : joined.entrySet())
            if (!e.getKey().equals(joining))
                group.put(e.getKey(), e.getValue());
        Map<String, Member> memberMetadataMap = new HashMap<>();
        group.forEach(memberMetadataMap::put);
        if (joining != null)
            memberMetadataMap.put(joining, joined.get(joining));
        return memberMetadataMap;
    }

    static void run(Map<String, Member> members, List<String> subtopologies, Map<String, Integer> tasks,
                    Set<String> stateful, int replicas, StringBuilder out) {
        AssignmentConfigs configs = new AssignmentConfigs() {
            public int numStandbyReplicas() { return replicas; }
            public List<String> rackAwareAssignmentTags() { return List.of(); }
        };
        GroupSpec spec = new GroupSpec() {
            public Collection<String> memberIds() { return members.keySet(); }
            public MemberAssignmentMetadata memberMetadata(String id) { return members.get(id); }
            public MemberAssignmentState memberAssignmentState(String id) { return members.get(id); }
            public AssignmentConfigs configs() { return configs; }
        };
        List<String> subs = new ArrayList<>(subtopologies);
        TopologyDescriber topology = new TopologyDescriber() {
            public List<String> subtopologies() { return subs; }
            public int maxNumInputPartitions(String id) { return tasks.get(id); }
            public boolean isStateful(String id) { return stateful.contains(id); }
        };
        GroupAssignment result;
        try {
            result = new StickyTaskAssignor().assign(spec, topology);
        } catch (RuntimeException e) {
            out.append("error ").append(e.getMessage()).append('\n');
            return;
        }
        List<String> rows = new ArrayList<>();
        for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
            e.getValue().activeTasks().forEach((s, ps) -> ps.forEach(p -> rows.add("a " + e.getKey() + " " + s + " " + p)));
            e.getValue().standbyTasks().forEach((s, ps) -> ps.forEach(p -> rows.add("s " + e.getKey() + " " + s + " " + p)));
        }
        rows.sort(null);
        rows.forEach(r -> out.append(r).append('\n'));
        out.append("end\n");
    }
}
