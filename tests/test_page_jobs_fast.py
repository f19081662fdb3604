"""The page jobs' shortcuts give exactly the text of the general way they replace."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from sitegen.model.career import _micros
from sitegen.output.gamesdata import _minute, _number, _rating, _rating_text
from sitegen.output.preview import _buckets
from sitegen.output.render import MINUS, fmt_date, fmt_delta, fmt_rating

finite = st.floats(allow_nan=False, allow_infinity=False)
ratings = st.one_of(finite, st.floats(-5000, 5000), st.integers(-10**6, 10**6),
                    st.sampled_from([0.0, -0.0, -0.001, 0.004, 0.005, -0.005, 1500.0, 1499.995, 1e12, -1e12,
                                     999999999999.995, 1e15 + 0.5]))


@given(ratings)
def test_rating_text_is_the_number_json_writes(value: float) -> None:
    assert _rating_text(value) == _number(_rating(value))


def _general_delta(value: float | None, decimals: int) -> str:
    if value is None:
        return "new"
    text = f"{abs(value):,.{decimals}f}"
    if not text.strip("0.,"):
        return "\u00b10"
    return ("+" if value > 0 else MINUS) + text


@given(st.one_of(st.none(), finite, st.sampled_from([0.0, -0.0, 0.04, -0.05, 0.05, 1234.5])), st.integers(0, 4))
def test_delta_and_rating_formats_match_the_general_spec(value: float | None, decimals: int) -> None:
    assert fmt_delta(value, decimals) == _general_delta(value, decimals)
    expected = "\u2013" if value is None else f"{value:,.{decimals}f}".replace("-", MINUS)
    assert fmt_rating(value, decimals) == expected


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
       st.sampled_from([None, timezone.utc, timezone(timedelta(hours=-5, minutes=-30))]))
def test_micros_count_as_pandas_does(t: datetime, tz: timezone | None) -> None:
    t = t.replace(tzinfo=tz)
    try:
        expected = int(pd.Timestamp(t).as_unit("us").asm8.astype(np.int64))
    except (OverflowError, ValueError, pd.errors.OutOfBoundsDatetime):
        return          # beyond what pandas can hold; the build's times are well inside
    assert _micros(t) == expected


def _general_buckets(xs: list[float], ys: list[float]) -> str:
    """preview._buckets as first written, rounding a point again at every comparison."""
    x, y = round(xs[0]), round(ys[0])
    d = [f"M{x} {y}"]
    i, n = 1, len(xs)
    while i < n:
        bx = round(xs[i])
        j = i
        while j < n and round(xs[j]) == bx:
            j += 1
        levels = [round(v) for v in ys[i:j]]
        d.append(f"h{bx - x}" if bx != x else "")
        x = bx
        for v in (min(levels), max(levels), levels[-1]) if j - i > 2 else levels:
            if v != y:
                d.append(f"v{v - y}")
                y = v
        i = j
    if n == 1:
        d.append(f"h{1000 - x}")
    return "".join(d)


@given(st.lists(st.tuples(st.floats(0, 1000), st.floats(0, 1000)), min_size=1, max_size=60))
def test_buckets_round_once_as_they_rounded_each_time(points: list[tuple[float, float]]) -> None:
    xs = sorted(x for x, _ in points)
    ys = [y for _, y in points]
    assert _buckets(xs, ys) == _general_buckets(xs, ys)


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
       st.sampled_from([None, timezone.utc, timezone(timedelta(hours=5, minutes=45))]), st.booleans())
def test_minutes_are_strftime_text(t: datetime, tz: timezone | None, whole: bool) -> None:
    t = t.replace(tzinfo=tz, second=0 if whole else t.second)
    assert _minute(t) == t.strftime("%Y-%m-%dT%H:%MZ" if t.second == 0 else "%Y-%m-%dT%H:%M:%SZ")


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
       st.sampled_from([None, timezone.utc]))
def test_dates_are_strftime_text(t: datetime, tz: timezone | None) -> None:
    t = t.replace(tzinfo=tz)
    assert fmt_date(t) == t.strftime("%Y-%m-%d")
    assert fmt_date(t.date()) == t.strftime("%Y-%m-%d")
