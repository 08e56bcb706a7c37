"""The JSON parser of every view (common/parsers.py), behind the request check: it
refuses a body past the bounds on its own, for a view the schema does not describe."""

from __future__ import annotations

import io

import pytest
from rest_framework.exceptions import ParseError

from heights_platform.common.parsers import MAX_BODY_VALUES, BoundedParseError, JSONParser
from heights_rules import MAX_JSON_DEPTH


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("[" * 100_000 + "]" * 100_000, MAX_JSON_DEPTH),
        ("[" + ",".join(["0"] * MAX_BODY_VALUES) + "]", MAX_BODY_VALUES),
    ],
    ids=["deep", "many-values"],
)
def test_the_parser_refuses_a_body_past_a_bound_naming_it(text: str, limit: int) -> None:
    with pytest.raises(BoundedParseError) as refused:
        JSONParser().parse(io.BytesIO(text.encode()))
    assert refused.value.limit == limit
    assert f"the limit is {limit}" in str(refused.value.detail)


def test_the_parser_still_reads_json_and_refuses_nan() -> None:
    body = b'{"options": {"round_cap": 30}, "opponents": [1, 2, 3]}'
    assert JSONParser().parse(io.BytesIO(body)) == {
        "options": {"round_cap": 30},
        "opponents": [1, 2, 3],
    }
    with pytest.raises(ParseError, match="NaN"):
        JSONParser().parse(io.BytesIO(b'{"a": NaN}'))
    with pytest.raises(ParseError):
        JSONParser().parse(io.BytesIO(b'{"a": '))
