// A test assignor (tests/heuristics/test_java_class.py): gives each member what it says it owned, and writes what
// reached it (every Subscription field, its user data, the cluster's replica racks) to $ORACLE_TEST_ECHO.
// COOPERATIVE: owned partitions come in ownedPartitions.  Its user data is what onAssignment told it.
package oracletest;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.io.FileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

public class Echo implements ConsumerPartitionAssignor {
    private String told = null;

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        told = metadata.generationId() + "|" + metadata.memberId() + "|" + metadata.groupInstanceId().orElse("-")
            + "|" + assignment.partitions();
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        return told == null ? null : ByteBuffer.wrap((told + "|" + new TreeSet<>(topics)).getBytes(StandardCharsets.UTF_8));
    }

    /** Eager members send no owned partitions: a subclass reads them back from the user data. */
    protected List<TopicPartition> owned(Subscription s) {
        return s.ownedPartitions();
    }

    static String text(ByteBuffer data) {
        if (data == null)
            return "null";
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public GroupAssignment assign(Cluster cluster, GroupSubscription group) {
        Map<String, Assignment> out = new TreeMap<>();
        StringBuilder dump = new StringBuilder();
        for (Map.Entry<String, Subscription> e : new TreeMap<>(group.groupSubscription()).entrySet()) {
            Subscription s = e.getValue();
            dump.append("member ").append(e.getKey())
                .append(" topics=").append(s.topics())
                .append(" owned=").append(s.ownedPartitions())
                .append(" generation=").append(s.generationId().map(String::valueOf).orElse("none"))
                .append(" rack=").append(s.rackId().orElse("none"))
                .append(" instance=").append(s.groupInstanceId().orElse("none"))
                .append(" userData=").append(text(s.userData())).append('\n');
            out.put(e.getKey(), new Assignment(new ArrayList<>(owned(s))));
        }
        for (String topic : new TreeSet<>(cluster.topics())) {
            for (PartitionInfo p : cluster.partitionsForTopic(topic)) {
                List<String> racks = new ArrayList<>();
                for (Node n : p.replicas())
                    racks.add(n.hasRack() ? n.rack() : "none");
                dump.append("partition ").append(topic).append('-').append(p.partition()).append(" racks=").append(racks)
                    .append('\n');
            }
        }
        String path = System.getenv("ORACLE_TEST_ECHO");
        if (path != null) {
            try (FileWriter w = new FileWriter(path, StandardCharsets.UTF_8, true)) {
                w.write(dump.toString());
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return new GroupAssignment(out);
    }
}
