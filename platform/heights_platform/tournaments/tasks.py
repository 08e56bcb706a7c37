"""Celery tasks of the tournaments app: thin, idempotent, arguments are ids.

`tournaments_tick_due` is meant for beat (every minute or so): it starts tournaments whose
registration has closed and advances any whose round finished without its hook running.
"""

from __future__ import annotations

from celery import shared_task

from heights_platform.tournaments import services

TASK_TOURNAMENT_TICK = "heights_platform.tournament_tick"
TASK_TOURNAMENTS_TICK_DUE = "heights_platform.tournaments_tick_due"


@shared_task(name=TASK_TOURNAMENT_TICK, acks_late=True)
def tournament_tick(tournament_id: int) -> None:
    services.tournament_tick(tournament_id=tournament_id)


@shared_task(name=TASK_TOURNAMENTS_TICK_DUE, acks_late=True)
def tournaments_tick_due() -> int:
    return services.tournaments_tick_due()
