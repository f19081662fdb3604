"""What every rating system shares: the common math, and one import for the shared parts.

The parts live in their own modules: ``values`` (matches, changes, events), ``fields``
(parameters, player fields, parsing), ``wording`` (values and keys in messages),
``protocol`` (what the pipeline needs of a system) and ``titles`` (match titles), all
re-exported here; ``replay`` (the one walk through a history) and ``registry`` (SYSTEMS)
are imported from their own modules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sitegen.rating.fields import (  # noqa: F401  (re-exported)
    BANDS_ALLOWED, COUNT_ALLOWED, K_ALLOWED, MAX_NAME, RATING_ALLOWED, Example, ExampleKey, Field, Param,
    check_name, count, either, is_int, is_number, k_value, non_negative, normalize_name, one_of,
    parse_entries, player_shape, positive, rating_value, valid_bands, valid_fields,
)
from sitegen.rating.protocol import (  # noqa: F401
    LN10_400, Curve, CurvePoint, Forecaster, Interval, MatchReader, MatchSystem, Presenter, Rater, Scaffold, Strength,
    System,
)
from sitegen.rating.values import (  # noqa: F401
    Change, Match, ParsedMatch, RatingDiverged, RatingEvent, Reporter, Standing, default_id, last_ratings,
)
from sitegen.rating.wording import (  # noqa: F401
    SHOWN_CHARS, close_to, did_you_mean, elsewhere, spec_page, toml_text, type_name, unknown_key,
    value_text,
)
from sitegen.rating.titles import EN_DASH, amount, event_name, first_of, listing, versus  # noqa: F401


def expected(r_a: float, r_b: float) -> float:
    """Logistic expected score of a against b on the 400-point scale (all the Elo seeds).

    Written as 10^-x / (1 + 10^-x) past x = 300, where 10^x would overflow a float
    (ratings 120,000 apart); below it the seeds' form, to the last bit.
    """
    x = (r_b - r_a) / 400.0
    if x > 300.0:
        t = 10.0 ** -x
        return t / (1.0 + t)
    return 1.0 / (1.0 + 10.0 ** x)



def k_from_bands(bands: Sequence[Sequence[float]], rating: float) -> float:
    """K of the last band whose min_rating is at most ``rating`` (the first band below all)."""
    k = bands[0][1]
    for low, band_k in bands:
        if rating >= low:
            k = band_k
        else:
            break
    return float(k)


def round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (not Python's banker's rounding)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))



def steps(lo: float, hi: float, n: int) -> list[float]:
    """n + 1 evenly spaced points from lo to hi: a curve's x values."""
    return [lo + (hi - lo) * i / n for i in range(n + 1)]


def expected_curve(note: str) -> Curve:
    """The 400-point logistic against the rating gap: the curve of the Elo-like systems."""
    rows: list[CurvePoint] = [{"x": gap, "y": expected(gap, 0.0), "series": "expected score"}
                                          for gap in steps(-800, 800, 80)]
    return Curve("Rating gap (own rating minus the opponent's)", "Expected score", "", tuple(rows),
                 "The expected score against one opponent as a function of the rating gap. " + note)
