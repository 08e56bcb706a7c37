"""Kendall's rank correlation of a measured order with a true order that has ties.

The true order of a graded population has ties (several copies of one kind are equally
strong), and no order of the copies is right or wrong. Plain tau-b would still count
those pairs in its denominator, so even a perfect ladder would score below 1 (0.918 for
four copies of five kinds): a target of 0.9 would be nearly out of reach for reasons
that have nothing to do with the ladder. So only pairs whose true strengths differ
count: tau = (concordant - discordant) / those pairs, a measured tie counting as
neither. It is 1 when every kind is above every weaker kind, -1 for the reverse, and
equals tau-a when the true order has no ties.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def kendall_tau(truth: Sequence[float], measured: Sequence[float]) -> float:
    """tau over the pairs that differ in `truth` (higher is better in both lists).

    0 when no pair differs in truth (nothing to order).
    """
    if len(truth) != len(measured):
        raise ValueError(f"the lists differ in length: {len(truth)} and {len(measured)}")
    score = pairs = 0
    for i, j in itertools.combinations(range(len(truth)), 2):
        dt = truth[i] - truth[j]
        if dt == 0:
            continue
        pairs += 1
        dm = measured[i] - measured[j]
        if dm != 0:
            score += 1 if (dt > 0) == (dm > 0) else -1
    return score / pairs if pairs else 0.0
