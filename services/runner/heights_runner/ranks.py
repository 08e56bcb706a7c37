"""Final ranks of a match: the engine's ranks, with forfeiting seats moved last."""

from __future__ import annotations


def final_ranks(engine_ranks: tuple[int, ...], forfeited: set[int]) -> list[int]:
    """Ranks with every forfeiting seat after every other; ties kept within each group."""
    ranks = []
    clean = [r for s, r in enumerate(engine_ranks) if s not in forfeited]
    lost = [r for s, r in enumerate(engine_ranks) if s in forfeited]
    for seat, rank in enumerate(engine_ranks):
        if seat in forfeited:
            ranks.append(len(clean) + 1 + sum(1 for r in lost if r < rank))
        else:
            ranks.append(1 + sum(1 for r in clean if r < rank))
    return ranks
