"""Numbers as the site prints them: Django's `floatformat` for a fixed number of places,
without its cost.

`floatformat` rounds the float's shortest repr half up as a Decimal, then localizes it
(`number_format`): some 25 µs a value, and a bot's page prints 300 of them (six in each of
its 50 rating-history rows). With localization off (this site's settings) the same text
is the quantized Decimal, with no sign on a zero; this gives it in about 2 µs.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

_EXPONENTS = {places: Decimal(1).scaleb(-places) for places in range(7)}
# Enough digits for any finite float with every place (the largest has 309 before the
# point): quantize never fails. (floatformat gives up above ~1e27 and below ~1e-300 and
# prints the repr, "1e+30"; this prints every digit. Ratings are nowhere near either.)
_CONTEXT = Context(prec=330, rounding=ROUND_HALF_UP)


def fixed(value: float, places: int) -> str:
    """`value` with exactly `places` decimals, as `{{ value|floatformat:places }}`
    prints it (half up from the shortest repr; "0.0", never "-0.0")."""
    if not 0 <= places < len(_EXPONENTS):
        raise ValueError(f"places must be 0 to {len(_EXPONENTS) - 1}, not {places}")
    if not math.isfinite(value):
        return str(value)  # "nan", "inf", "-inf", as floatformat prints them
    rounded = Decimal(repr(value)).quantize(_EXPONENTS[places], context=_CONTEXT)
    if rounded.is_zero():
        rounded = abs(rounded)  # -0.04 prints as 0.0
    return f"{rounded:f}"
