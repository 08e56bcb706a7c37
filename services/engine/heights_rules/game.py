"""The playable game: `GameState`, a `State` with the rules' public surface.

The data lives in `heights_rules.state`; the rule modules act on it and import it.
This module sits above them all, so the surface a caller plays through (current
player, legal actions, apply, copies, bytes, observations) calls the rules directly,
without the rules ever importing it.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from heights_rules.actions import NUM_ACTIONS, Action
from heights_rules.describe import describe_decision
from heights_rules.dispatch import apply_action
from heights_rules.errors import IllegalActionError, InvalidActionError
from heights_rules.legal import legal_ids
from heights_rules.observation import HIDDEN, ViewCache, observation
from heights_rules.options import GameConfig
from heights_rules.rng import KeyedRng
from heights_rules.serialize import document_from_bytes, load_into, state_hash, to_bytes
from heights_rules.setup import set_up
from heights_rules.state import CHANCE, TERMINAL, Event, State, copy_fields


class GameState(State):
    """One game in progress. Build with `heights_rules.new_game`."""

    __slots__ = ()

    def legal_actions(self) -> list[int]:
        """The sorted ids of every legal action (empty when the game is over)."""
        return legal_ids(self)

    def legal_action_objects(self) -> list[Action]:
        return [Action.from_id(a) for a in self.legal_actions()]

    def apply(self, action: int | Action | str, seat: int | None = None) -> list[Event]:
        """Apply one action (id, Action or text) and return the events it caused.

        Raises InvalidActionError for a malformed action and IllegalActionError for one
        that is not legal now (or not `seat`'s decision); the state is then unchanged.
        """
        action_id = _to_id(action)
        if seat is not None and seat != self.current_player():
            raise IllegalActionError(
                f"seat {seat} cannot act now: it is {_who(self.current_player())}'s decision"
            )
        if action_id not in self.legal_actions():
            raise IllegalActionError(
                f"{Action.from_id(action_id).text()!r} is not legal now ({self.decision_text()})"
            )
        self.events = []
        self._legal = None
        self.steps += 1
        apply_action(self, action_id)
        return self.events

    def clone(self) -> GameState:
        """An independent copy; immutable parts are shared."""
        c = GameState.__new__(GameState)
        copy_fields(self, c)
        return c

    def to_bytes(self) -> bytes:
        return to_bytes(self)

    @staticmethod
    def from_bytes(blob: bytes) -> GameState:
        s = GameState()
        # The document was parsed just now and nobody else holds it: no deep copy.
        load_into(s, document_from_bytes(blob), owned=True)
        return s

    def state_hash(self) -> str:
        return state_hash(self)

    def observation(self, viewer: int = -1, cache: ViewCache | None = None) -> dict[str, Any]:
        """What `viewer` (a seat, or -1 for a spectator) may see, as plain data.

        With a `cache` (one per game), unchanged parts are shared with the game's earlier
        views built with it: read-only (heights_rules.observation.ViewCache).
        """
        return observation(self, viewer, cache)

    def decision_text(self) -> str:
        return describe_decision(self)


def new_game(config: GameConfig, seed: int) -> GameState:
    """A new game at its first decision (the first starting placement)."""
    s = GameState()
    set_up(s, config, seed)
    return s


def from_infoset(
    data: dict[str, Any],
    owned: bool = False,
    base: tuple[dict[str, Any], GameState] | None = None,
) -> GameState:
    """A state from an infoset; hidden parts stay hidden until `determinize`.

    With `owned`, `data` (e.g. just parsed from JSON) is consumed rather than copied.
    With `base`, an earlier (infoset, state from it), the parts `data` shares with that
    infoset are taken from that state (serialize.load_into).
    """
    clean = {k: v for k, v in data.items() if k != "redacted_for"}
    s = GameState()
    load_into(s, clean, owned, base)
    return s


def determinize(s: GameState, viewer: int, key: int) -> GameState:
    """A full state consistent with what `viewer` knows, the hidden parts drawn by `key`.

    Fresh draw piles order, other seats' hidden Targets from the Targets the viewer
    has not seen, and a fresh seed for every future roll.
    """
    rng = KeyedRng(key)
    d = s.clone()
    d.seed = key
    d.rng = rng
    d.piles = [rng.shuffled(sorted(pile), b"pile%d" % level) for level, pile in enumerate(s.piles)]
    if any(HIDDEN in targets for targets in s.targets):
        seen = {t for targets in s.targets for t in targets if t != HIDDEN}
        seen.update(t for t in s.target_choice if t >= 0)
        pool = rng.shuffled([t for t in range(len(s.catalogue.targets)) if t not in seen], b"tg")
        d.targets = [list(targets) for targets in s.targets]
        for p, targets in enumerate(d.targets):
            if p != viewer and HIDDEN in targets:
                # A Target already chosen (and so revealed) is one of the pair.
                known = [s.target_choice[p]] if s.target_choice[p] >= 0 else []
                d.targets[p] = sorted(known + [pool.pop() for _ in targets[len(known) :]])
    d.events = []
    d._legal = None
    return d


def _to_id(action: int | Action | str) -> int:
    if type(action) is int and 0 <= action < NUM_ACTIONS:
        return action
    if isinstance(action, Action):
        return action.id
    if isinstance(action, str):
        return Action.parse(action).id
    if isinstance(action, bool) or not isinstance(action, int):
        raise InvalidActionError(f"an action is an id, an Action or a text, not {action!r}")
    if not 0 <= action < NUM_ACTIONS:
        raise InvalidActionError(f"action id {action} is not in [0, {NUM_ACTIONS})")
    return action


def _who(player: int) -> str:
    if player == CHANCE:
        return "chance"
    if player == TERMINAL:
        return "nobody (the game is over)"
    return f"seat {player}"


def unasked_action(state: GameState, forced_for: AbstractSet[int]) -> int | None:
    """The next step nobody has to be asked for: a chance step, or the single legal action
    of a decision of a seat in `forced_for` (a forced decision, docs/bot-protocol.md);
    None when a seat must choose or the game is over. The engine service and the runner's
    in-process engine both play exactly these steps."""
    mover = state.current_player()
    if mover == CHANCE:
        return state.legal_actions()[0]
    if mover in forced_for:  # never TERMINAL, which is no seat
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
    return None
