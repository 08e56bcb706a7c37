"""A Rolling Heights bot in Python: plays a random legal action, seeded, so the same game
gives the same moves. Replace `choose` with your own strategy.

`heights_sdk` is the protocol helper (docs/bot-protocol.md, "The Python SDK"); the
sandbox mounts it, and the packages of requirements/bot-python.txt (numpy among them).
"""

import random
import sys

from heights_sdk import Bot, Decision, run


class StarterBot(Bot):
    def on_start(self, hello: dict) -> None:
        self.random = random.Random(7 + hello["seat"])

    def choose(self, decision: Decision) -> tuple[int, str]:
        action = self.random.choice(decision.legal)
        return action.id, f"random: {action.text}"

    def on_end(self, result: dict) -> None:
        print("game over", file=sys.stderr)  # stderr is the bot's log


if __name__ == "__main__":
    run(StarterBot(name="starter-py"))
