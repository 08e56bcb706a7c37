"""Human-readable description of the pending decision (for errors, logs and observations)."""

from __future__ import annotations

from heights_rules.frames import F, Purpose, RollKind
from heights_rules.state import Phase, State

_TEXT = {
    F.MAIN: "main phase: activate, buy, trade, use Wild Tokens, build, or end the turn",
    F.START: "choose a starting plan from the level-1 market",
    F.ASIDE: "set meeples aside (more than 10 owned)",
    F.RISK: "rally the exhausted meeples or stop",
    F.STRIKE: "strike: return working meeples to the box",
    F.UPGRADE: "Public Servant: upgrade a meeple",
    F.USE: "Public Figure: choose one of your completed buildings",
    F.PICK: "choose one of your meeples for the ability",
    F.CUBE: "choose the colour of a gained cube",
    F.GAIN: "choose the colour of the rewarded meeple",
    F.TAKE: "City Planner: take any plan from either market",
    F.TARGET: "final scoring: choose the Target to score",
    F.MAYOR_BUILD: "Mayor: choose which cube the Mayor places",
}


def describe_decision(s: State) -> str:
    if s.phase is Phase.OVER:
        return "the game is over"
    kind, p, a, b, _ = s.stack[-1]
    who = f"seat {p}"
    if kind is F.ROLL:
        return f"chance: {RollKind(a).name.lower()} roll"
    if kind is F.PLACE:
        return f"{who}: place the plan ({Purpose(a).name.lower()})"
    if kind is F.PAY:
        return f"{who}: pay {a} more ({Purpose(b).name.lower()})"
    return f"{who}: {_TEXT[kind]}"
