"""A starter bot: copy this file as your `main.py` and improve `choose`.

It prefers building, then buying, placing and activating meeples, and otherwise
takes the first legal action. Run it locally: `heights match main.py random`.
"""

from __future__ import annotations

from heights_sdk import Bot, Decision, run

PREFERENCES = ("build", "buy", "place", "activate")


class StarterBot(Bot):
    def choose(self, decision: Decision) -> tuple[int, str]:
        for prefix in PREFERENCES:
            options = decision.find(prefix)
            if options:
                return options[0].id, f"first {prefix}"
        return decision.legal[0].id, "first legal action"


if __name__ == "__main__":
    run(StarterBot(name="starter"))
