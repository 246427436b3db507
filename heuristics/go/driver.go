// assignment-oracle's Go driver: one Go client library's own balancer, called directly on one scenario.
//
//	driver STRATEGY [DRAWS] < scenario.json > {"assignment": {member: {topic: [partitions]}}}
//
// STRATEGY is sarama:range, sarama:roundrobin, sarama:sticky, kafka-go:range, kafka-go:roundrobin or
// kafka-go:rack-affinity; `driver versions` names the libraries it was built against (from the manifest, passed
// in at build time with -ldflags -X).
//
// Built with runtime_rand.go beside this file in place of the toolchain's src/runtime/rand.go (go build
// -overlay): the runtime's random generator starts from a constant seed, so Go's map hash seeds and iteration
// starts -- the only randomness on the balancers' path; sarama's sticky hands out partitions in map order -- are
// the same in every run, and each answer is the one the library gives with the runtime's random source in that
// state.  The main goroutine is locked to the main thread (init below): the generator is per thread (per M),
// and a goroutine that moved to another thread would draw from another state.  DRAWS (for tests, default 0):
// draw that many values from the generator before anything else, the runtime in another state, as if seeded
// otherwise -- what a library's answer does when the runtime's random source differs.  The libraries are the Debian source packages pinned by debian.json beside
// this file (sarama 1.50.1 as github.com/IBM/sarama, kafka-go 0.4.51 as github.com/segmentio/kafka-go), built in
// GOPATH mode by heuristics/go_peers.py.  Only exported API is used: no test binary is needed.
//
// Each balancer gets its inputs built the way that library's group leader builds them (read in its source):
//
// sarama (consumer_group.go, newSession -> balance; balance_strategy.go): the leader decodes the JoinGroup
// response's member metadata with JoinGroupResponse.GetMembers (a map memberID -> ConsumerGroupMemberMetadata:
// Go map order, so no member order survives; GroupInstanceId is not read), refreshes metadata for the union of
// the subscriptions and asks client.Partitions(topic) for each: a topic the cluster does not have fails with
// ErrUnknownTopicOrPartition and the whole rebalance fails (newSession returns the error).  Then
// strategy.Plan(members, topicPartitions).  Each member's metadata is what its joinGroupRequest sends
// (subscriptionMetadata: version 0, Topics, UserData = c.userData), encoded here with sarama's own
// JoinGroupRequest.AddGroupProtocolMetadata and decoded with its own GetMembers.  c.userData is what the
// member kept from its last SyncGroup: strategy.AssignmentData(memberID, its assignment, generationID) --
// for sticky a StickyAssignorUserDataV1 {its previous assignment, the generation it was made in}; nil for
// range and roundrobin, and nil for a member that never had an assignment.  So a scenario member's `owned`
// and `generation` become sticky's AssignmentData(owned, generation); a member that owns partitions without a
// generation (-1, Kafka's V0 user data) sends StickyAssignorUserDataV0 bytes (the topics only; sarama's
// decoder falls back to V0 when V1 does not decode).  Range and roundrobin read no user data: none is sent.
//
// kafka-go (consumergroup.go, joinGroup -> assignTopicPartitions; groupbalancer.go): the leader decodes
// the JoinGroup members into []GroupMember{ID, Topics, UserData} in the broker's order (here the scenario's,
// by member id), reads partitions with conn.readPartitions(extractTopics(members)...) (the union, sorted)
// and calls balancer.AssignGroups(members, partitions).  UserData is the balancer's UserData(): nil for range
// and roundrobin, the member's rack for RackAffinityGroupBalancer{Rack}.  Partitions come in metadata order
// (topics as requested, partitions ascending), each with its leader broker; the leader's rack is the first
// replica's rack of the scenario (`topics.*.racks[p][0]`, the preferred leader), "" without rack information.
// A subscribed topic the cluster does not have: the coordinator connection has no topic of its own, so
// readTopicMetadatav1/v6 return (nil, UnknownTopicOrPartition) for the whole request, and
// assignTopicPartitions ignores that error ("it's not a failure if the topic doesn't exist yet") and balances
// an empty partition list: here likewise, partitions = nil.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"

	"github.com/IBM/sarama"
	kafka "github.com/segmentio/kafka-go"
)

// Set at build time (-ldflags -X main.versions=...): the library versions of the manifest.
var versions = "unknown"

type topicSpec struct {
	Partitions int
	Racks      [][]string
}

func (t *topicSpec) UnmarshalJSON(data []byte) error {
	var n int
	if err := json.Unmarshal(data, &n); err == nil {
		t.Partitions = n
		return nil
	}
	var full struct {
		Partitions int        `json:"partitions"`
		Racks      [][]string `json:"racks"`
	}
	if err := json.Unmarshal(data, &full); err != nil {
		return err
	}
	t.Partitions, t.Racks = full.Partitions, full.Racks
	return nil
}

type memberSpec struct {
	Topics     []string           `json:"topics"`
	Owned      map[string][]int32 `json:"owned"`
	Generation *int32             `json:"generation"`
	Rack       *string            `json:"rack"`
	InstanceID *string            `json:"instance_id"`
}

type member struct {
	id string
	memberSpec
}

type scenario struct {
	topics  map[string]topicSpec
	members []member // in the scenario's order
}

// readScenario reads the scenario JSON, keeping the members' order as written (Go maps would lose it).
func readScenario(r io.Reader) (*scenario, error) {
	var raw struct {
		Topics  map[string]topicSpec `json:"topics"`
		Members json.RawMessage      `json:"members"`
	}
	decoder := json.NewDecoder(r)
	if err := decoder.Decode(&raw); err != nil {
		return nil, err
	}
	s := &scenario{topics: raw.Topics}
	if len(raw.Members) == 0 {
		return s, nil
	}
	members := json.NewDecoder(bytes.NewReader(raw.Members))
	if tok, err := members.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("members is not an object")
	}
	for members.More() {
		tok, err := members.Token()
		if err != nil {
			return nil, err
		}
		var spec memberSpec
		if err := members.Decode(&spec); err != nil {
			return nil, err
		}
		s.members = append(s.members, member{id: tok.(string), memberSpec: spec})
	}
	return s, nil
}

// assignment is member -> topic -> partitions, as the external protocol writes it.
type assignment map[string]map[string][]int

func (a assignment) add(memberID, topic string, partitions ...int) {
	if len(partitions) == 0 {
		return
	}
	if a[memberID] == nil {
		a[memberID] = map[string][]int{}
	}
	a[memberID][topic] = append(a[memberID][topic], partitions...)
}

// ---- sarama ----------------------------------------------------------------------------------------------

func saramaStrategy(name string) sarama.BalanceStrategy {
	switch name {
	case "range":
		return sarama.NewBalanceStrategyRange()
	case "roundrobin":
		return sarama.NewBalanceStrategyRoundRobin()
	case "sticky":
		return sarama.NewBalanceStrategySticky()
	}
	return nil
}

// stickyUserDataV0 encodes StickyAssignorUserDataV0 as sarama's packetEncoder does (big-endian: array
// length int32, then per topic a string (int16 length) and an int32 array (int32 length)).
func stickyUserDataV0(owned map[string][]int32) []byte {
	var out []byte
	put32 := func(v int32) { out = binary.BigEndian.AppendUint32(out, uint32(v)) }
	topics := make([]string, 0, len(owned))
	for topic := range owned {
		topics = append(topics, topic)
	}
	sort.Strings(topics)
	put32(int32(len(topics)))
	for _, topic := range topics {
		out = binary.BigEndian.AppendUint16(out, uint16(len(topic)))
		out = append(out, topic...)
		put32(int32(len(owned[topic])))
		for _, p := range owned[topic] {
			put32(p)
		}
	}
	return out
}

func runSarama(name string, s *scenario) (assignment, error) {
	strategy := saramaStrategy(name)
	// The user data each member kept from its last SyncGroup (consumer_group.go: c.userData).
	userData := func(m member) ([]byte, error) {
		if name != "sticky" {
			return nil, nil // range and roundrobin: AssignmentData returns nil
		}
		generation := int32(-1)
		if m.Generation != nil {
			generation = *m.Generation
		}
		if generation < 0 {
			if len(m.Owned) == 0 {
				return nil, nil // a member that never had an assignment: Member.UserData, nil by default
			}
			return stickyUserDataV0(m.Owned), nil
		}
		owned := m.Owned
		if owned == nil {
			owned = map[string][]int32{}
		}
		return strategy.AssignmentData(m.id, owned, generation)
	}
	// The JoinGroup response the leader receives, members' metadata encoded by sarama itself.
	response := &sarama.JoinGroupResponse{GroupProtocol: strategy.Name()}
	for _, m := range s.members {
		data, err := userData(m)
		if err != nil {
			return nil, err
		}
		request := &sarama.JoinGroupRequest{}
		topics := m.Topics
		if topics == nil {
			topics = []string{}
		}
		if err := request.AddGroupProtocolMetadata(strategy.Name(), &sarama.ConsumerGroupMemberMetadata{Topics: topics, UserData: data}); err != nil {
			return nil, err
		}
		response.Members = append(response.Members, sarama.GroupMember{
			MemberId: m.id, GroupInstanceId: m.InstanceID, Metadata: request.OrderedGroupProtocols[0].Metadata,
		})
	}
	members, err := response.GetMembers()
	if err != nil {
		return nil, err
	}
	// consumerGroup.balance: the union of the subscriptions, each topic's partitions from the client.
	topicPartitions := map[string][]int32{}
	for _, meta := range members {
		for _, topic := range meta.Topics {
			topicPartitions[topic] = nil
		}
	}
	for topic := range topicPartitions {
		spec, ok := s.topics[topic]
		if !ok {
			return nil, fmt.Errorf("the leader's balance fails for topic %q: %w", topic, sarama.ErrUnknownTopicOrPartition)
		}
		partitions := make([]int32, spec.Partitions)
		for p := range partitions {
			partitions[p] = int32(p)
		}
		topicPartitions[topic] = partitions
	}
	plan, err := strategy.Plan(members, topicPartitions)
	if err != nil {
		return nil, err
	}
	result := assignment{}
	for memberID, topics := range plan {
		for topic, partitions := range topics {
			ints := make([]int, len(partitions))
			for i, p := range partitions {
				ints[i] = int(p)
			}
			result.add(memberID, topic, ints...)
		}
	}
	return result, nil
}

// ---- kafka-go --------------------------------------------------------------------------------------------

func runKafkaGo(name string, s *scenario) (assignment, error) {
	members := make([]kafka.GroupMember, 0, len(s.members))
	var balancer kafka.GroupBalancer
	for _, m := range s.members {
		var mine kafka.GroupBalancer
		switch name {
		case "range":
			mine = kafka.RangeGroupBalancer{}
		case "roundrobin":
			mine = kafka.RoundRobinGroupBalancer{}
		case "rack-affinity":
			rack := ""
			if m.Rack != nil {
				rack = *m.Rack
			}
			mine = kafka.RackAffinityGroupBalancer{Rack: rack}
		}
		if balancer == nil {
			balancer = mine // the leader's own balancer (the first member: the broker's first to join)
		}
		userData, err := mine.UserData()
		if err != nil {
			return nil, err
		}
		topics := m.Topics
		if topics == nil {
			topics = []string{}
		}
		members = append(members, kafka.GroupMember{ID: m.id, Topics: topics, UserData: userData})
	}
	// extractTopics: the union of the subscriptions, sorted; readPartitions answers for all or none.
	seen := map[string]bool{}
	var topics []string
	for _, m := range members {
		for _, topic := range m.Topics {
			if !seen[topic] {
				seen[topic] = true
				topics = append(topics, topic)
			}
		}
	}
	sort.Strings(topics)
	var partitions []kafka.Partition
	for _, topic := range topics {
		spec, ok := s.topics[topic]
		if !ok {
			partitions = nil // (nil, UnknownTopicOrPartition) for the whole request, the error ignored
			break
		}
		for p := 0; p < spec.Partitions; p++ {
			leaderRack := ""
			if spec.Racks != nil && len(spec.Racks[p]) > 0 {
				leaderRack = spec.Racks[p][0]
			}
			partitions = append(partitions, kafka.Partition{Topic: topic, ID: p, Leader: kafka.Broker{Rack: leaderRack}})
		}
	}
	result := assignment{}
	for memberID, byTopic := range balancer.AssignGroups(members, partitions) {
		for topic, ids := range byTopic {
			result.add(memberID, topic, ids...)
		}
	}
	return result, nil
}

// ---- main ------------------------------------------------------------------------------------------------

var strategies = map[string]func(*scenario) (assignment, error){
	"sarama:range":           func(s *scenario) (assignment, error) { return runSarama("range", s) },
	"sarama:roundrobin":      func(s *scenario) (assignment, error) { return runSarama("roundrobin", s) },
	"sarama:sticky":          func(s *scenario) (assignment, error) { return runSarama("sticky", s) },
	"kafka-go:range":         func(s *scenario) (assignment, error) { return runKafkaGo("range", s) },
	"kafka-go:roundrobin":    func(s *scenario) (assignment, error) { return runKafkaGo("roundrobin", s) },
	"kafka-go:rack-affinity": func(s *scenario) (assignment, error) { return runKafkaGo("rack-affinity", s) },
}

// init locks the main goroutine to the main thread (the runtime's m0) for main as well: every draw of the
// runtime's per-thread generator below comes from m0's state, which the pinned seed fixes.
func init() {
	runtime.LockOSThread()
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "versions" {
		fmt.Println(versions)
		return
	}
	var run func(*scenario) (assignment, error)
	draws, err := uint64(0), error(nil)
	if len(os.Args) == 3 {
		draws, err = strconv.ParseUint(os.Args[2], 10, 32)
	}
	if (len(os.Args) == 2 || len(os.Args) == 3) && err == nil {
		run = strategies[os.Args[1]]
	}
	if run == nil {
		names := make([]string, 0, len(strategies))
		for name := range strategies {
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: driver STRATEGY [DRAWS] < scenario.json (STRATEGY: %v)\n", names)
		os.Exit(2)
	}
	for range draws {
		rand.Uint64() // math/rand/v2's global source is the runtime's generator (runtime.rand)
	}
	s, err := readScenario(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot read the scenario: %v\n", err)
		os.Exit(1)
	}
	result := assignment{}
	if len(s.members) > 0 { // no member, no leader: nobody runs a balancer
		if result, err = run(s); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
			os.Exit(1)
		}
	}
	out, err := json.Marshal(map[string]assignment{"assignment": result})
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot write the answer: %v\n", err)
		os.Exit(1)
	}
	os.Stdout.Write(append(out, '\n'))
}
