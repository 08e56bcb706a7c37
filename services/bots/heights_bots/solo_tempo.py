"""Solo play against the Mayor: racing the game end.

The Mayor scores a point per cube of every building it finishes and rolls more dice as
the rounds go by (once a turn, twice from round 6, three times from round 12; RULES.md
§8.3), so every round the game lasts is worth more to it than to the player. In solo,
a cube of the colour closest to being fully built is therefore worth more than its share
of a plan: it brings the end, and with it the Mayor's last rolls, nearer.

Measured over 1,000 solo games at the default difficulty (reconstructed-v3, seeds
5000-5999, docs/balance.md): the player's win rate goes from 10.1% to 15.3% with
`RUSH_VP` 0.5 (15.1% at 0.8; 0.3, 1.5 and 3 measured lower on seeds 0-999). A larger
value shortens the game more but makes the player buy worse plans: at 1.5 the Mayor
scores 10 VP less and the player 8 VP less.

Only solo games read this module; the greedy bot's play in 2-4 player games does not
depend on it (tests/bots/test_greedy_pinned.py).
"""

from __future__ import annotations

from heights_rules import GameState

RUSH_VP = 0.5  # VP per cube of the rush colour a plan needs, on top of its own value


def rush_colour(s: GameState) -> int:
    """The cube colour with the fewest cubes left to build before it ends the game
    (the first such colour on a tie)."""
    # A plain loop: this runs for every plan the bot values, and a key function costs
    # more than the rest of it in the compiled build.
    total, built = s.total, s.on_buildings
    best, best_left = 0, total[0] - built[0]
    for colour in (1, 2, 3):
        left = total[colour] - built[colour]
        if left < best_left:
            best, best_left = colour, left
    return best


def rush_value(s: GameState, need: tuple[int, int, int, int]) -> float:
    """What building a plan's `need` is worth in solo for the end it brings nearer (VP)."""
    return RUSH_VP * need[rush_colour(s)]
