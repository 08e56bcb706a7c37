"""Celery tasks of the ladders app: thin over the services, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from heights_platform.ladders import services

TASK_LADDER_MATCHMAKE = "heights_platform.ladder_matchmake"


@shared_task(name=TASK_LADDER_MATCHMAKE, acks_late=True)
def ladder_matchmake() -> int:
    """Beat: create the next ladder matches, within each ladder's in-flight cap."""
    return services.ladders_matchmake()
