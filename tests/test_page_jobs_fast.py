"""The page jobs' shortcuts give exactly the text of the general way they replace."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from sitegen.model.career import _micros
from sitegen.model.career import Rival
from sitegen.model.views import Link
from sitegen.output.gamesdata import OUTCOMES, _counted, _minute, _number, _rating, _rating_text, _shown
from sitegen.output.preview import _steps
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
    """preview._steps as first written, rounding a point again at every comparison."""
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
    assert _steps([round(v) for v in xs], [round(v) for v in ys]) == _general_buckets(xs, ys)


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


def _general_counted(rivals, games, labels: bool, duels: bool, decimals: int):
    """gamesdata._counted as first written: the counted names sorted, then compared."""
    count: dict[str, list] = {}
    for name, result, change, _ in games:
        c = count.setdefault(name, [0, 0, 0, 0, change])
        c[0] += 1
        word = result.partition(" ")[0]
        if word in OUTCOMES:
            c[1 + OUTCOMES.index(word)] += 1
        c[4] = change
    if len(count) != len(rivals) or sorted(count, key=lambda n: (-count[n][0], n)) != \
            [r.opponent.text for r in rivals]:
        return None
    changes = {}
    for r in rivals:
        games_, won, drawn, lost, last = count[r.opponent.text]
        if games_ != r.games or (labels and (won, drawn, lost) != (r.wins, r.draws, r.losses)):
            return None
        if duels and fmt_delta(r.change, decimals) != last:
            changes[r.opponent.text] = None if r.change is None else _shown(r.change, decimals)
    return changes


game_rows = st.lists(st.tuples(st.sampled_from(["Ana", "Bo", "Cy", "Dee", "Éa"]),
                               st.sampled_from(["win", "loss", "draw", "win 3–1", "2nd of 4"]),
                               st.one_of(st.none(), st.sampled_from([-3.0, 0.04, 2.5, 12.0]))), max_size=30)


@given(game_rows, st.integers(0, 3), st.booleans(), st.sampled_from([None, 0.0, 2.5]), st.booleans())
def test_counted_without_a_sort_as_with_one(rows, spoil: int, labels: bool, offset: float | None, duels: bool) -> None:
    games = [(name, result, fmt_delta(value, 1), value) for name, result, value in rows]
    # The rivals as the career gives them (most games first, then name), their changes summed,
    # then spoiled one way or another: the check must say None exactly when the sort would.
    met: dict[str, list] = {}
    for name, result, _, value in games:
        m = met.setdefault(name, [0, 0, 0, 0, 0.0])
        m[0] += 1
        word = result.partition(" ")[0]
        if word in OUTCOMES:
            m[1 + OUTCOMES.index(word)] += 1
        m[4] = None if value is None or m[4] is None else m[4] + value
    rivals = [Rival(Link(n, n), m[0], m[1], m[2], m[3], m[4] if offset is None or m[4] is None else m[4] + offset)
              for n, m in sorted(met.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    if spoil == 1 and len(rivals) > 1:
        rivals[0], rivals[-1] = rivals[-1], rivals[0]
    elif spoil == 2 and rivals:
        rivals = rivals[1:] + [rivals[0]._replace(opponent=Link("Zed", "zed"))]
    elif spoil == 3 and rivals:
        rivals[-1] = rivals[-1]._replace(games=rivals[-1].games + 1)
    assert _counted(tuple(rivals), games, labels, duels, 1) == _general_counted(tuple(rivals), games, labels, duels, 1)
