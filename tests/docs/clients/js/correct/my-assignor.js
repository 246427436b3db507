// The assignor docs/testing.md's JavaScript example judges, a stand-in written for
// tests/docs/test_testing_examples.py: Kafka's range, per topic, subscribers in name order, contiguous runs,
// the first ones taking one more. It keeps per-topic balance, the guarantee the example asks for.
function assign ({ members, topics }) {
  const names = Object.keys(members).sort()
  const answer = Object.fromEntries(names.map(name => [name, {}]))
  for (const [topic, count] of Object.entries(topics)) {
    const subscribers = names.filter(name => members[name].topics.includes(topic))
    if (subscribers.length === 0) continue
    const each = Math.floor(count / subscribers.length)
    const extra = count % subscribers.length
    let next = 0
    subscribers.forEach((name, i) => {
      const take = each + (i < extra ? 1 : 0)
      if (take > 0) answer[name][topic] = Array.from({ length: take }, (_, k) => next + k)
      next += take
    })
  }
  return answer
}

module.exports = { assign }
