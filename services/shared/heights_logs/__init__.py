"""The one JSON log shape every service writes (`JsonFormatter`), below them all.

Its own package at the bottom of the layers, beside the rules core and independent of
it: the engine service and the platform (and anything else that logs JSON) import it
from here, so neither reaches into the other for it.
"""

from heights_logs.json_lines import JsonFormatter

__all__ = ["JsonFormatter"]
