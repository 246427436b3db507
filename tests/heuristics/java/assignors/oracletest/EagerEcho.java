// A test assignor (tests/heuristics/test_java_class.py): Echo under the EAGER protocol only, so owned partitions
// reach it only through the user data its members' onAssignment produced.
package oracletest;

import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.List;

public class EagerEcho extends Echo {
    @Override
    public String name() {
        return "eager-echo";
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER);
    }

    /** "generation|member|instance|[t-0, u-1]|[topics]": the owned list back as TopicPartitions. */
    @Override
    protected List<TopicPartition> owned(Subscription s) {
        List<TopicPartition> owned = new ArrayList<>();
        String data = text(s.userData());
        if (data.equals("null"))
            return owned;
        String list = data.split("\\|")[3];
        for (String tp : list.substring(1, list.length() - 1).split(", ")) {
            if (tp.isEmpty())
                continue;
            int dash = tp.lastIndexOf('-');
            owned.add(new TopicPartition(tp.substring(0, dash), Integer.parseInt(tp.substring(dash + 1))));
        }
        return owned;
    }
}
