"""Built-in bots, weakest first: `random`, `noisy-greedy-{50,25,10}`, `greedy`, `search`,
`mcts`; and helpers to play games with them.

Build one with `make_bot(name, seed, **budget)`; a bot's `act(state, seat)` returns a
legal action id using only what that seat may know. `play_game` plays and records one
game, `run_games` a series with seats rotated.
"""

from heights_bots.bot import BOT_CLOCKS, BOT_NAMES, Bot, make_bot, seat_seed
from heights_bots.greedy import GreedyBot
from heights_bots.mcts import MctsBot
from heights_bots.noisy_greedy import NOISY_EPSILONS, NoisyGreedyBot
from heights_bots.play import GameRecord, SeriesSummary, play_game, run_games, summarize
from heights_bots.random_bot import RandomBot
from heights_bots.search import SearchBot

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
