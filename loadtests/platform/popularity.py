"""Which bot a spectator of the load test looks at: Zipf popularity, as real readers pick.

Readers of a ladder do not pick its bots uniformly: a few (the leaders, the newest, the
ones in the news) draw most of the reads, and the tail is read rarely. Request
popularity on the web follows Zipf's law closely (Breslau et al., "Web Caching and
Zipf-like Distributions", INFOCOM 1999: exponents 0.64-0.83 over pages), so the k-th most
popular bot is drawn with probability proportional to 1 / k**s. Which bot is k-th is a
fixed shuffle of the manifest's bots (`order_seed`), the same in every user and every
run, so two runs read the same bots equally often; s = 0 is the uniform draw the load
test used before.

With the default s = 0.8 over 1,000 bots, the most popular bot draws 6.5% of the reads,
the top 10 23%, the top 100 53% and the top 500 83% (`head_share`); s = 1.0 gives 13%,
39%, 69% and 91%.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence

DEFAULT_EXPONENT = 0.8
DEFAULT_ORDER_SEED = 19


class Zipf:
    """Draws items of `items` with probability proportional to 1 / rank**exponent, the
    rank of each given by a shuffle of `items` seeded with `order_seed`."""

    def __init__(
        self,
        items: Sequence[int],
        *,
        exponent: float = DEFAULT_EXPONENT,
        order_seed: int = DEFAULT_ORDER_SEED,
    ) -> None:
        if not items:
            raise ValueError("Zipf needs at least one item")
        if not 0.0 <= exponent <= 4.0:
            raise ValueError(f"the Zipf exponent must be within 0..4, not {exponent}")
        ranked = list(items)
        random.Random(order_seed).shuffle(ranked)
        self.ranked: tuple[int, ...] = tuple(ranked)
        self.exponent = exponent
        weights: list[float] = [1.0 / float(rank) ** exponent for rank in range(1, len(ranked) + 1)]
        self._cumulative: list[float] = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random) -> int:
        """One item, by its Zipf weight."""
        total = self._cumulative[-1]
        index = bisect.bisect_right(self._cumulative, rng.random() * total)
        return self.ranked[min(index, len(self.ranked) - 1)]

    def head_share(self, count: int) -> float:
        """The share of draws that fall on the `count` most popular items."""
        if count <= 0:
            return 0.0
        return self._cumulative[min(count, len(self.ranked)) - 1] / self._cumulative[-1]
