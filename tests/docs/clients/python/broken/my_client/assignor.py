"""A deliberately broken assignor for docs/testing.md's Python example: every partition of a topic goes to
its first subscriber in name order, whatever was owned; the example's tests must fail on it."""


def assign(scenario: dict) -> dict:
    members = sorted(scenario["members"])
    answer: dict = {member: {} for member in members}
    for topic, size in scenario["topics"].items():
        count = size if isinstance(size, int) else size["partitions"]
        subscribers = [m for m in members if topic in scenario["members"][m]["topics"]]
        if subscribers and count:
            answer[subscribers[0]][topic] = list(range(count))
    return answer
