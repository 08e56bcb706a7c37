"""The chart of `heights ladder-sim --chart`: mean tau against games per bot.

One line per configuration and leaderboard order, the target as a dashed line. Only
this module imports matplotlib (the Agg backend: no display needed), so the simulator
runs without it until a chart is asked for.
"""

from __future__ import annotations

from typing import Any


def draw(report: dict[str, Any], path: str, *, target: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 6))
    for row in report["rows"]:
        xs = [point[0] for point in row["curve"]]
        taus = [point[1] for point in row["curve"]]
        label = f"{row['matchmaking']}{' dup' if row['duplicate'] else ''} / {row['order']}"
        style = "-" if row["duplicate"] else ":"
        axes.plot(xs, taus, style, label=label, linewidth=1.2)
    axes.axhline(target, color="grey", linestyle="--", linewidth=0.8)
    axes.set_xlabel("games per bot")
    axes.set_ylabel("Kendall tau with the true order")
    axes.set_ylim(-0.1, 1.0)
    axes.legend(fontsize=7, ncol=2, loc="lower right")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
