// A test assignor (tests/heuristics/test_java_class.py): Dealer's deal under the COOPERATIVE protocol, leaving out
// what another member still owns (as Kafka's CooperativeStickyAssignor leaves out partitions transferring ownership).
package oracletest;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class CooperativeDealer extends Dealer {
    @Override
    public String name() {
        return "cooperative-dealer";
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE);
    }

    @Override
    public GroupAssignment assign(Cluster cluster, GroupSubscription group) {
        Map<TopicPartition, String> owner = new HashMap<>();
        group.groupSubscription().forEach((m, s) -> s.ownedPartitions().forEach(tp -> owner.put(tp, m)));
        Map<String, Assignment> out = new TreeMap<>();
        super.assign(cluster, group).groupAssignment().forEach((m, a) -> {
            List<TopicPartition> kept = new ArrayList<>();
            for (TopicPartition tp : a.partitions())
                if (owner.getOrDefault(tp, m).equals(m))
                    kept.add(tp);
            out.put(m, new Assignment(kept));
        });
        return new GroupAssignment(out);
    }
}
