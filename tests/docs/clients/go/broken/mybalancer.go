// Package mybalancer, deliberately broken (tests/docs/test_testing_examples.py): every partition of a topic
// goes to its first subscriber in name order. docs/testing.md's Go example must fail on it.
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

// Balance gives each topic's partitions to its first subscriber.
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
		for _, name := range names {
			subscribed := false
			for _, t := range members[name].Topics {
				subscribed = subscribed || t == topic
			}
			if subscribed {
				if len(partitions) > 0 {
					plan[name][topic] = partitions
				}
				break
			}
		}
	}
	return plan
}
