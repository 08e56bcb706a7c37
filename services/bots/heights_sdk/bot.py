"""What a bot sees and implements: a `Decision` in, one legal action id out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class LegalAction:
    id: int
    text: str  # canonical text, e.g. "buy L1 #3" (docs/engine.md lists the grammar)


# What `Bot.choose` returns: an action, or an action and a debug note; the action as its
# id or as one of `Decision.legal`, whichever reads better in the bot.
Choice = int | LegalAction | tuple[int | LegalAction, str]


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of this bot's seat, with the seat's observation of the game."""

    step: int  # the replay step this action will be
    decision: str  # what is being decided, in words
    legal: tuple[LegalAction, ...]
    observation: dict[str, Any]  # the seat's view (docs/bot-protocol.md, "Observation")
    move_ms: int  # time for this move before the bank is drawn on
    bank_ms: int  # what is left of the game's time bank
    # What is left of the seat's whole-game thinking budget, every move counted (a move
    # past it is a timeout, bank or not); None from a runner that sends none.
    game_ms: int | None = None

    @property
    def me(self) -> dict[str, Any]:
        """This seat's player entry (score, cubes, meeples, tiles, Targets)."""
        players: list[dict[str, Any]] = self.observation["players"]
        return players[int(self.observation["viewer"])]

    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.observation["players"]
        return players

    def find(self, prefix: str) -> list[LegalAction]:
        """The legal actions whose text starts with `prefix` (e.g. "buy", "pass")."""
        return [a for a in self.legal if a.text.startswith(prefix)]


@dataclass(slots=True)
class Bot:
    """Base class: override `choose`; `on_start` and `on_end` are optional hooks."""

    name: str = "bot"
    seat: int = -1
    players: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    def on_start(self, hello: dict[str, Any]) -> None:
        """Called once with the hello message, before the first decision."""

    def choose(self, decision: Decision) -> Choice:
        """A legal action (its id or the `LegalAction` itself), or (that, a short debug
        note kept in the replay)."""
        raise NotImplementedError

    def on_end(self, result: dict[str, Any]) -> None:
        """Called once with the end message (ranks, scores, outcome)."""
