"""Built-in bots, weakest first: `random`, `noisy-greedy-{50,25,10}`, `greedy`, `search`,
`mcts`; and helpers to play games with them.

Build one with `make_bot(name, seed, **budget)`; a bot's `act(state, seat)` returns a
legal action id using only what that seat may know. `play_game` plays and records one
game, `run_games` a series with seats rotated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from heights_bots.bot import BOT_CLOCKS, BOT_NAMES, Bot, make_bot, seat_seed
from heights_rules import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from heights_bots.greedy import GreedyBot
    from heights_bots.mcts import MctsBot
    from heights_bots.noisy_greedy import NOISY_EPSILONS, NoisyGreedyBot
    from heights_bots.play import GameRecord, SeriesSummary, play_game, run_games, summarize
    from heights_bots.random_bot import RandomBot
    from heights_bots.search import SearchBot

# Each name's module, imported on first use: a sandboxed bot process imports this
# package for the one bot it plays (make_bot imports that bot's module), and every
# match starts four such processes.
_LAZY = {
    "GreedyBot": "heights_bots.greedy",
    "MctsBot": "heights_bots.mcts",
    "NOISY_EPSILONS": "heights_bots.noisy_greedy",
    "NoisyGreedyBot": "heights_bots.noisy_greedy",
    "GameRecord": "heights_bots.play",
    "SeriesSummary": "heights_bots.play",
    "play_game": "heights_bots.play",
    "run_games": "heights_bots.play",
    "summarize": "heights_bots.play",
    "RandomBot": "heights_bots.random_bot",
    "SearchBot": "heights_bots.search",
}


__getattr__ = _lazy_exports(__name__, _LAZY)

__all__ = [
    "BOT_CLOCKS",
    "BOT_NAMES",
    "NOISY_EPSILONS",
    "Bot",
    "GameRecord",
    "GreedyBot",
    "MctsBot",
    "NoisyGreedyBot",
    "RandomBot",
    "SearchBot",
    "SeriesSummary",
    "make_bot",
    "play_game",
    "run_games",
    "seat_seed",
    "summarize",
]
