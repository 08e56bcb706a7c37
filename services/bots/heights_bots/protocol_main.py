"""A built-in bot as a protocol program: `python -m heights_bots.protocol_main NAME SEED`.

SEED is the bot's own seed (`heights_bots.seat_seed` of the match seed and the seat, as
the runner computes it), never the match seed: a bot must not hold a value from which
the match seed follows.

The built-ins run through the same JSON-lines protocol as submitted bots. Each decision's
observation carries the seat's information set, which becomes a `GameState` the bot can
read: the same hidden-information contract as in-process play (heights_bots.bot).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from heights_bots.bot import BOT_NAMES, make_bot
from heights_rules import DEFAULT_CATALOGUE, GameState, from_infoset, load_catalogue
from heights_sdk import Bot, Decision, run


class BuiltinBot(Bot):
    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name=name)
        self._seed = seed
        self._bot: Any = None
        # The last decision's (infoset, state): an observation made by a patch shares
        # its unchanged parts with the last one, and the state built from those is reused.
        self._base: tuple[dict[str, Any], GameState] | None = None

    def on_start(self, hello: dict[str, Any]) -> None:
        # The runner derived this seed from the match seed and the seat (seat_seed), so
        # a re-run match replays identically.
        self._bot = make_bot(self.name, self._seed)
        # Load (and validate) the catalogue now, inside the start-up allowance, rather
        # than during the first move's.
        load_catalogue(str(hello.get("catalogue", DEFAULT_CATALOGUE)))

    def choose(self, decision: Decision) -> tuple[int, str]:
        return self.choose_from(self.state_of(decision))

    def state_of(self, decision: Decision) -> GameState:
        """The seat's view of the game as a state the bot reads."""
        infoset = decision.observation["infoset"]
        state = from_infoset(infoset, owned=True, base=self._base)
        self._base = (infoset, state)
        return state

    def choose_from(self, state: GameState) -> tuple[int, str]:
        action, note = self._bot.act_with_note(state, self.seat)
        return int(action), str(note)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in BOT_NAMES or not args[1].isdigit():
        print(f"usage: protocol_main {{{','.join(BOT_NAMES)}}} SEED", file=sys.stderr)
        return 2
    run(BuiltinBot(args[0], int(args[1])))
    return 0


def _exit_now(code: int) -> NoReturn:
    """End the process without the interpreter's teardown (freeing every module and
    object one by one): ~15-20% of a built-in bot's CPU from start to end, four times a
    match, for a process whose game is over and whose output is flushed here."""
    with contextlib.suppress(OSError):  # the runner may have closed the pipes already
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit_now(main())
