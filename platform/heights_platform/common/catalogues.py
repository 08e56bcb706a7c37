"""The catalogue a match, ladder or tournament plays with, as a column and as API input.

One declaration for the three apps that store one: the default is the rules core's
(`heights_rules.DEFAULT_CATALOGUE`), never a copy of its id; whether an id names a
catalogue the engine ships is `options_check`'s business.
"""

from __future__ import annotations

from django.db import models
from rest_framework import serializers

from heights_rules import DEFAULT_CATALOGUE

# Room for a catalogue id in a row and in a request; the rules core's ids are short.
CATALOGUE_ID_MAX_LENGTH = 40


def catalogue_column() -> models.CharField[str, str]:
    """The model field holding a catalogue id."""
    return models.CharField(max_length=CATALOGUE_ID_MAX_LENGTH, default=DEFAULT_CATALOGUE)


def catalogue_input() -> serializers.CharField:
    """The serializer field taking a catalogue id (the default when it is left out)."""
    return serializers.CharField(max_length=CATALOGUE_ID_MAX_LENGTH, default=DEFAULT_CATALOGUE)
