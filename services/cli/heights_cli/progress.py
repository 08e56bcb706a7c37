"""The progress bar of every long wait in the CLI (a local tournament, the demo's
tournament and ladder): one look, drawn by rich, and only on a terminal. Piped or
redirected, the bar is not drawn at all, so a log or a CI job holds the results and no
carriage-return redraws."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import IO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class ProgressBar:
    """`with ProgressBar("tournament", 12, "matches") as bar: bar.update(done, note)`."""

    def __init__(self, label: str, total: int, unit: str = "", stream: IO[str] | None = None):
        console = Console(file=stream or sys.stderr)
        self.shown = console.is_terminal
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(unit),
            TimeElapsedColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
            disable=not self.shown,
        )
        self._task = self._progress.add_task(label, total=max(1, total), note="")

    def update(self, done: int, note: str = "", total: int | None = None) -> None:
        """`done` of the total so far (and a new total, where the work grew)."""
        if total is not None:
            self._progress.update(self._task, total=max(1, total))
        self._progress.update(self._task, completed=done, note=note)

    def __enter__(self) -> ProgressBar:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._progress.stop()
