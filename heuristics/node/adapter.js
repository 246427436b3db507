#!/usr/bin/env node
'use strict';
/*
 * assignment-oracle's Node adapter: one Node client library's own assignor, called directly on one scenario.
 *
 *   node adapter.js STRATEGY < scenario.json > {"assignment": {member: {topic: [partitions]}}}
 *
 * STRATEGY is kafkajs:roundrobin, kafka-node:range or kafka-node:roundrobin.  The libraries are the ones
 * pinned by package-lock.json beside this file (kafkajs 2.2.4, kafka-node 5.0.0), found through NODE_PATH
 * (heuristics/node_peers.py installs them).  Each assignor gets its inputs built the way that library's group
 * leader builds them (read in its source):
 *
 * kafkajs (src/consumer/consumerGroup.js, [PRIVATE.SYNC]): the leader calls
 *   assigner.assign({members, topics: topicsSubscribed}), where `members` is the JoinGroup response
 *   ({memberId, groupInstanceId, memberMetadata: Buffer}, each member's metadata being what its
 *   assigner.protocol({topics}) encoded with MemberMetadata.encode: version 0, its subscription, no user data)
 *   and `topics` is the LEADER'S OWN subscription, not the group's.  The assigner reads partitions from
 *   cluster.findTopicPartitionMetadata(topic) ([] for a topic the cluster does not know).  The leader is the
 *   first member of the scenario (the broker makes the first member to join the leader).  RoundRobinAssigner
 *   reads neither member metadata nor claims nor generations: none are sent (it has none to send).  The
 *   leader is the first member in the group's join order.
 *
 * kafka-node (lib/consumerGroup.js, handleJoinGroup -> assignPartitions): the leader decodes the JoinGroup
 *   response with protocol.decodeJoinGroupResponse (members {id, subscription, version, userData}), loads
 *   metadata for the union of the members' subscriptions and calls
 *   protocol.assign(_.mapValues(metadata, Object.keys), groupMembers, cb): topic -> partition numbers as
 *   strings.  Here the JoinGroup response is encoded as the broker sends it (v0) and decoded by kafka-node's
 *   own decoder; topics the cluster does not have are absent from the metadata, as in kafka-node.  The
 *   metadata object is filled in the scenario's topic order, which stands for the order of the broker's
 *   metadata response (kafka-node's own tests hand `assign` a topicPartition object in a given order);
 *   roundrobin deals topics in that order (Kafka sorts them), and a JavaScript object puts integer-like
 *   keys ("7") first whatever the order.  Members arrive in the group's join order (the scenario's; both
 *   assignors sort them again), each subscription sorted.  Neither range nor roundrobin reads user data:
 *   built-in protocols send none, so claims and generations are not passed.
 *
 * Both: the scenario's order arrives as `join_order` and `topic_order` lists (a JavaScript object would put
 * integer-like keys first), and every map keyed by a name has no prototype.
 */

const STRATEGIES = {
  'kafkajs:roundrobin': kafkajsRoundRobin,
  'kafka-node:range': (scenario) => kafkaNode('range', scenario),
  'kafka-node:roundrobin': (scenario) => kafkaNode('roundrobin', scenario),
};

function topicCounts (scenario) {
  const counts = new Map();
  for (const [name, value] of Object.entries(scenario.topics || {})) {
    counts.set(name, typeof value === 'number' ? value : value.partitions);
  }
  return counts;
}

/* The members in the group's join order: the scenario's `join_order` (sent by node_peers.py, as a JavaScript
 * object would put integer-like member ids first), else the object's own order. */
function members (scenario) {
  const all = scenario.members || {};
  const order = Array.isArray(scenario.join_order) ? scenario.join_order : Object.keys(all);
  return order.map((id) => ({
    id,
    topics: all[id].topics || [],
    instanceId: all[id].instance_id == null ? null : all[id].instance_id,
  }));
}

/* The topics in the scenario's order (`topic_order`, else the object's own): the cluster metadata's order. */
function topicOrder (scenario) {
  return Array.isArray(scenario.topic_order) ? scenario.topic_order : Object.keys(scenario.topics || {});
}

/* Maps without a prototype: a topic or member named like a builtin ("constructor", "toString") is a key like
 * any other (kafkajs's own test "assign topics with names taken from builtin functions"). */
function addPartitions (result, member, topic, partitions) {
  const topics = result[member] || (result[member] = Object.create(null));
  const list = topics[topic] || (topics[topic] = []);
  for (const p of partitions) list.push(Number(p));
}

async function kafkajsRoundRobin (scenario) {
  const { MemberMetadata, MemberAssignment } = require('kafkajs/src/consumer/assignerProtocol');
  const RoundRobinAssigner = require('kafkajs/src/consumer/assigners/roundRobinAssigner');
  const counts = topicCounts(scenario);
  const group = members(scenario);
  if (group.length === 0) return {}; // no member, no leader: nobody runs an assignor
  const cluster = {
    findTopicPartitionMetadata (topic) {
      const n = counts.has(topic) ? counts.get(topic) : 0;
      return Array.from({ length: n }, (_, p) => ({ partitionId: p, leader: 0, replicas: [0], isr: [0] }));
    },
  };
  const assigner = RoundRobinAssigner({ cluster });
  const joinMembers = group.map((m) => ({
    memberId: m.id,
    groupInstanceId: m.instanceId,
    memberMetadata: assigner.protocol({ topics: m.topics }).metadata,
  }));
  // consumerGroup.js: assigner.assign({ members, topics: topicsSubscribed }) on the leader.
  const leader = group[0];
  const answer = await assigner.assign({ members: joinMembers, topics: leader.topics });
  const result = Object.create(null);
  for (const { memberId, memberAssignment } of answer) {
    const decoded = MemberAssignment.decode(memberAssignment); // what each member receives in SyncGroup
    for (const [topic, partitions] of Object.entries(decoded.assignment)) {
      addPartitions(result, memberId, topic, partitions);
    }
  }
  // The metadata each member would have sent is checked to decode as sent (kafkajs's own decoder).
  for (const m of joinMembers) MemberMetadata.decode(m.memberMetadata);
  return result;
}

function string16 (text) {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(2);
  length.writeInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function int16 (n) {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

function int32 (n) {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

/* A JoinGroup v0 response as the broker sends it to the leader; kafka-node's decoder reads the size and
 * correlation id first.  Member metadata is what kafka-node's _encodeProtocolData writes for a built-in
 * protocol: version 0, the subscription, user data -1 (none). */
function joinGroupResponse (protocolName, group) {
  const parts = [int32(0), int16(0), int32(1), string16(protocolName), string16(group[0].id), string16(group[0].id)];
  parts.push(int32(group.length));
  for (const m of group) {
    const metadata = Buffer.concat([int16(0), int32(m.topics.length), ...m.topics.map(string16), int32(-1)]);
    parts.push(string16(m.id), int32(metadata.length), metadata);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([int32(body.length), body]);
}

function kafkaNode (name, scenario) {
  const protocol = require('kafka-node/lib/protocol/protocol');
  const assignor = require('kafka-node/lib/assignment')[name];
  const _ = require('lodash');
  const counts = topicCounts(scenario);
  const group = members(scenario);
  if (group.length === 0) return Promise.resolve({});
  const decoded = protocol.decodeJoinGroupResponse(joinGroupResponse(name, group));
  if (decoded instanceof Error) throw decoded;
  const groupMembers = decoded.members;
  // assignPartitions: metadata for the union of the subscriptions, in the metadata's order (the scenario's
  // topic order); mapTopicToPartitions = _.mapValues(.., Object.keys).
  const subscribed = new Set(_(groupMembers).map('subscription').flatten().value());
  const metadata = {};
  for (const topic of topicOrder(scenario)) {
    if (!subscribed.has(topic) || !counts.has(topic)) continue; // absent from kafka-node's metadata
    const partitions = {};
    for (let p = 0; p < counts.get(topic); p++) partitions[p] = { topic, partition: p };
    metadata[topic] = partitions;
  }
  const topicPartition = _.mapValues(metadata, Object.keys);
  return new Promise((resolve, reject) => {
    assignor.assign(topicPartition, groupMembers, (err, list) => {
      if (err) return reject(err);
      const result = Object.create(null);
      for (const { memberId, topicPartitions } of list) {
        for (const [topic, partitions] of Object.entries(topicPartitions)) {
          addPartitions(result, memberId, topic, partitions);
        }
      }
      resolve(result);
    });
  });
}

async function main () {
  const strategy = process.argv[2];
  const run = STRATEGIES[strategy];
  if (!run) {
    process.stderr.write(`unknown strategy ${JSON.stringify(strategy)} (known: ${Object.keys(STRATEGIES).join(', ')})\n`);
    process.exit(2);
  }
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const scenario = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const assignment = await run(scenario);
  process.stdout.write(JSON.stringify({ assignment }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${err && err.name ? err.name : 'Error'}: ${err && err.message ? err.message : err}\n`);
  process.stderr.write(`${err && err.stack ? err.stack : ''}\n`);
  process.exit(1);
});
