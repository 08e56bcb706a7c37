"""The Python SDK for Rolling Heights bots: subclass `Bot`, implement `choose`, call `run`.

Standard library only, so it runs in the sandbox exactly as on an author's machine.
The protocol itself (docs/bot-protocol.md) is language-neutral JSON lines; this package
is one implementation of its bot side.
"""

from heights_sdk.bot import Bot, Choice, Decision, LegalAction
from heights_sdk.loop import PROTOCOL_VERSION, ProtocolError, run

__all__ = ["PROTOCOL_VERSION", "Bot", "Choice", "Decision", "LegalAction", "ProtocolError", "run"]
