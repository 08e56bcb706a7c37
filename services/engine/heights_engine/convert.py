"""Proto messages <-> domain values: where the generated types stop.

Only this module and the servicer import `heights_engine.proto`; everything else works
with `heights_rules` values and the service's own dataclasses.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from heights_engine.errors import Code, EngineError, invalid
from heights_engine.proto import engine_service_pb2 as service_pb
from heights_engine.proto import game_pb2 as pb
from heights_engine.views import Step, View
from heights_rules import (
    DocumentTooDeepError,
    GameConfig,
    Outcome,
    RuleOptionError,
    RuleOptions,
    Verification,
    action_text,
    bounded_json_loads,
)

MAX_OPTIONS_JSON = 4096
# Views and outcomes are trees built here and in the rules core, never cyclic: without
# `check_circular` the C encoder skips a dict insert and delete per container, ~25% of
# encoding a patch (~40 -> ~31 us CPU, timed over a game's 885 patches on a loaded
# machine). The same output as json.dumps with the same options.
_PATCH_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
_SORTED_JSON = json.JSONEncoder(separators=(",", ":"), sort_keys=True, check_circular=False).encode


def config_from_proto(msg: pb.GameConfig) -> GameConfig:
    """A validated configuration; INVALID_ARGUMENT otherwise: DOCUMENT_TOO_LARGE or
    DOCUMENT_TOO_DEEP past the bounds, BAD_RULE_OPTION (metadata `option`, `allowed`) for
    rule options, BAD_CONFIG for the rest."""
    if len(msg.options_json) > MAX_OPTIONS_JSON:
        raise EngineError(
            Code.INVALID_ARGUMENT,
            "DOCUMENT_TOO_LARGE",
            f"options_json has {len(msg.options_json)} characters; the limit is {MAX_OPTIONS_JSON}",
            {"field": "config.options_json", "limit": str(MAX_OPTIONS_JSON)},
        )
    try:
        options: Any = bounded_json_loads(msg.options_json) if msg.options_json else {}
        if not isinstance(options, dict):
            raise ValueError("options_json must be a JSON object of rule options")
        extra: dict[str, Any] = {"catalogue_id": msg.catalogue_id} if msg.catalogue_id else {}
        return GameConfig(
            players=msg.players,
            solo=msg.solo,
            options=RuleOptions.from_dict(options),
            catalogue_sha256=msg.catalogue_sha256,
            **extra,
        )
    except DocumentTooDeepError as err:
        raise EngineError(
            Code.INVALID_ARGUMENT,
            "DOCUMENT_TOO_DEEP",
            f"options_json is {err}; the limit is {err.limit} levels",
            {"field": "config.options_json", "limit": str(err.limit)},
        ) from None
    except RuleOptionError as err:
        metadata = {"option": err.option, "allowed": err.allowed[:512]}
        raise EngineError(Code.INVALID_ARGUMENT, "BAD_RULE_OPTION", str(err), metadata) from None
    except ValueError as err:  # json, players and catalogue errors alike
        raise invalid("BAD_CONFIG", str(err)) from None


@functools.lru_cache(maxsize=256)
def _options_json(options: RuleOptions) -> str:
    """Every view carries its game's options; few distinct ones are ever in play."""
    return _json(options.to_dict())


@functools.cache  # bounded: one per action id, NUM_ACTIONS of them
def action_to_proto(action_id: int) -> pb.Action:
    """The action's message, built once per id and shared: never change it.

    Every caller puts it into a field of another message, which copies it; building a
    fresh one for each legal action of every response was about half of an
    ApplyAction response's construction (loadtests/README.md).
    """
    return pb.Action(id=action_id, text=action_text(action_id))


def step_to_proto(step: Step) -> pb.Step:
    return pb.Step(index=step.index, action=action_to_proto(step.action), actor=step.actor)


def add_steps(field: Any, steps: list[Step]) -> None:
    """Append `steps` to a repeated Step field of a response.

    Each is built in place (`add`): a `pb.Step` built apart and then `extend`ed was
    copied once more, its action included.
    """
    for step in steps:
        field.add(index=step.index, action=action_to_proto(step.action), actor=step.actor)


# The responses whose repeated Action field `_merge_actions` fills, by that field's name.
_ACTION_FIELDS: dict[str, Any] = {
    "legal_actions": service_pb.ApplyActionResponse,
    "actions": service_pb.ListLegalActionsResponse,
}


@functools.cache  # bounded: two fields, NUM_ACTIONS ids each
def _action_entry(field: str, action_id: int) -> bytes:
    """The action as one encoded entry of the repeated Action `field` of its response."""
    response = _ACTION_FIELDS[field](**{field: [action_to_proto(action_id)]})
    return bytes(response.SerializeToString())


def _merge_actions(response: Any, field: str, ids: list[int]) -> None:
    if ids:
        response.MergeFromString(b"".join([_action_entry(field, a) for a in ids]))


def add_legal_actions(response: service_pb.ApplyActionResponse, ids: list[int]) -> None:
    """Append the actions `ids` to `response.legal_actions`, as `extend` would.

    From each action's encoded entry, made once per id: parsing them in is a third of
    what copying the shared `pb.Action` messages in cost (~1.2 against ~3.7 us for six
    actions, most ApplyAction answers carry some). A repeated field's entries merged
    from the wire are appended in order (the protobuf encoding's rule), so the message
    is the one `extend` builds (tests/engine/test_convert.py).
    """
    _merge_actions(response, "legal_actions", ids)


def add_listed_actions(response: service_pb.ListLegalActionsResponse, ids: list[int]) -> None:
    """`add_legal_actions` for `ListLegalActionsResponse.actions`."""
    _merge_actions(response, "actions", ids)


def outcome_to_proto(result: Outcome) -> pb.Outcome:
    seats = [
        pb.SeatResult(seat=p, total=total, rank=rank, meeples=meeples)
        for p, (total, rank, meeples) in enumerate(
            zip(result.totals, result.ranks, result.meeples, strict=True)
        )
    ]
    return pb.Outcome(
        termination=result.termination.value,
        rounds=result.rounds,
        seats=seats,
        outcome_json=_json(result.to_dict()),
    )


def view_to_proto(view: View, msg: pb.GameView | None = None) -> pb.GameView:
    """The view's message; written into `msg` when given (a response's field).

    Filling a response's own field saves building a message and then copying it in,
    which every ApplyAction with `next_view` did (the view carries a patch or a ~13 KB
    observation).
    """
    if msg is None:
        msg = pb.GameView()
    msg.game_id = view.game_id
    msg.viewer = view.viewer
    msg.sequence = view.sequence
    msg.status = pb.GAME_STATUS_OVER if view.over else pb.GAME_STATUS_IN_PROGRESS
    msg.to_move = view.to_move
    msg.phase = view.phase
    msg.round = view.round
    config = view.config
    msg.config.players = config.players
    msg.config.solo = config.solo
    msg.config.catalogue_id = config.catalogue_id
    msg.config.catalogue_sha256 = config.catalogue_sha256
    msg.config.options_json = _options_json(config.options)
    msg.seat_names.extend(view.seat_names)
    msg.seed.commitment_sha256 = view.commitment
    msg.seed.salt_hex = view.salt_hex
    if view.seed is not None:
        msg.seed.seed = view.seed
    if view.patch is None:
        msg.observation_json = _json(view.observation)
    else:
        msg.observation_patch_json = _PATCH_JSON(view.patch)
        msg.patch_base_sequence = view.patch_base
    if view.outcome is not None:
        msg.outcome.CopyFrom(outcome_to_proto(view.outcome))
    return msg


def verification_to_proto(result: Verification) -> service_pb.VerifyReplayResponse:
    msg = service_pb.VerifyReplayResponse(ok=result.ok, steps=result.steps, message=result.message)
    if not result.ok and result.first_bad_step is not None:
        msg.first_bad_step = result.first_bad_step
    return msg


def _json(data: Any) -> str:
    return _SORTED_JSON(data)
