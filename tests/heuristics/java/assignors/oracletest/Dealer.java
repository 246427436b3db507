// A test assignor (tests/heuristics/test_java_class.py): deals every topic's partitions around its subscribers,
// topics and members in name order, one turn counter across topics.  Some topic names make it misbehave.
package oracletest;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

public class Dealer implements ConsumerPartitionAssignor {
    @Override
    public String name() {
        return "dealer";
    }

    @Override
    public GroupAssignment assign(Cluster cluster, GroupSubscription group) {
        Map<String, Subscription> members = new TreeMap<>(group.groupSubscription());
        TreeSet<String> topics = new TreeSet<>();
        members.values().forEach(s -> topics.addAll(s.topics()));
        if (topics.contains("throw"))
            throw new IllegalStateException("dealer refuses topic throw");
        if (topics.contains("halt")) {
            System.err.println("dealer: halting on purpose");
            System.err.flush();
            Runtime.getRuntime().halt(3);
        }
        if (topics.contains("sleep")) {
            try {
                Thread.sleep(600_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (topics.contains("chatty"))
            System.out.println("dealer: noise on System.out");
        Map<String, List<TopicPartition>> given = new TreeMap<>();
        members.keySet().forEach(m -> given.put(m, new ArrayList<>()));
        int turn = 0;
        for (String topic : topics) {
            List<String> subscribers = new ArrayList<>();
            members.forEach((m, s) -> {
                if (s.topics().contains(topic))
                    subscribers.add(m);
            });
            int count = cluster.partitionsForTopic(topic).size();
            for (int p = 0; p < count; p++) {
                if (topic.equals("twice")) { // every subscriber gets every partition: invalid
                    for (String m : subscribers)
                        given.get(m).add(new TopicPartition(topic, p));
                    continue;
                }
                given.get(subscribers.get(turn % subscribers.size())).add(new TopicPartition(topic, p));
                turn++;
            }
        }
        Map<String, Assignment> out = new TreeMap<>();
        given.forEach((m, ps) -> out.put(m, new Assignment(ps)));
        return new GroupAssignment(out);
    }
}
