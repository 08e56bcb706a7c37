"""The two ways an action can be refused (python-chess style: both are ValueErrors)."""

from __future__ import annotations


class ActionError(ValueError):
    """Base class of every refused action; the state is unchanged when it is raised."""


class InvalidActionError(ActionError):
    """The action is malformed: an unknown id or text that does not parse."""


class IllegalActionError(ActionError):
    """The action is well formed but not legal in this state (or not this seat's turn)."""


class CatalogueError(ValueError):
    """A catalogue file does not match its schema or breaks a consistency rule."""


class ReplayError(ValueError):
    """A replay record is malformed or does not fit the engine or catalogue in use."""
