// Package mybalancer stands for the balancer docs/testing.md's Go example judges (a stand-in written for
// tests/docs/test_testing_examples.py): Kafka's range, per topic, subscribers in name order, contiguous runs,
// the first ones taking one more. It keeps per-topic balance, the guarantee the example asks for.
package mybalancer

import "sort"

// Member is what the balancer knows of a member: its subscription, what it owned at which generation
// (-1: none) and its rack ("": none).
type Member struct {
	Topics     []string
	Owned      map[string][]int32
	Generation int32
	Rack       string
}

// Plan is member -> topic -> partitions (sarama's BalanceStrategyPlan).
type Plan map[string]map[string][]int32

// Balance plans the group: topics maps each topic in the metadata to its partitions.
func Balance(members map[string]Member, topics map[string][]int32) Plan {
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names)
	plan := Plan{}
	for _, name := range names {
		plan[name] = map[string][]int32{}
	}
	for topic, partitions := range topics {
		var subscribers []string
		for _, name := range names {
			for _, t := range members[name].Topics {
				if t == topic {
					subscribers = append(subscribers, name)
					break
				}
			}
		}
		if len(subscribers) == 0 {
			continue
		}
		each, extra := len(partitions)/len(subscribers), len(partitions)%len(subscribers)
		next := 0
		for i, name := range subscribers {
			take := each
			if i < extra {
				take++
			}
			if take > 0 {
				plan[name][topic] = partitions[next : next+take]
			}
			next += take
		}
	}
	return plan
}
