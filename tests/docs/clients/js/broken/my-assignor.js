// Deliberately broken (tests/docs/test_testing_examples.py): every partition of a topic goes to its first
// subscriber in name order. docs/testing.md's JavaScript example must fail on it.
function assign ({ members, topics }) {
  const names = Object.keys(members).sort()
  const answer = Object.fromEntries(names.map(name => [name, {}]))
  for (const [topic, count] of Object.entries(topics)) {
    const first = names.find(name => members[name].topics.includes(topic))
    if (first !== undefined && count > 0) answer[first][topic] = Array.from({ length: count }, (_, k) => k)
  }
  return answer
}

module.exports = { assign }
