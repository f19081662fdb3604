"""The rating-history preview of a big league's player page (sitegen/output/preview.py): the
step line in whole units of the 1000-wide box, at most four vertices a unit, drawing what
the full path draws (every level a game reached, spikes too) to within half a unit."""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta, timezone

import pytest

from sitegen.output import preview

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def path_of(svg: str) -> str:
    return re.search(r'<path class="line" d="([^"]+)"', svg)[1]


def absolute(d: str) -> list[tuple[float, float]]:
    """The vertices of a path of M, H, V, h and v commands."""
    x = y = 0.0
    out = []
    for cmd, num in re.findall(r"([MHVhv])([-\d. ]+)", d):
        if cmd == "M":
            x, y = map(float, num.split())
        elif cmd == "H":
            x = float(num)
        elif cmd == "V":
            y = float(num)
        elif cmd == "h":
            x += float(num)
        else:
            y += float(num)
        out.append((x, y))
    return out


def strokes(vertices: list[tuple[float, float]]) -> list[tuple[float, float, float]]:
    """The line's vertical strokes: (x, lowest y, highest y)."""
    return [(x0, min(y0, y1), max(y0, y1)) for (x0, y0), (x1, y1) in zip(vertices, vertices[1:])
            if x0 == x1 and y0 != y1]


def points(n: int, seed: int, spread: timedelta) -> list[tuple[datetime, float]]:
    rng = random.Random(seed)
    times = sorted(START + spread * rng.random() for _ in range(n))
    rating, out = 1500.0, []
    for t in times:
        rating += rng.uniform(-25, 25) if rng.random() > 0.01 else rng.choice((-300, 300))   # spikes
        out.append((t, rating))
    return out


@pytest.mark.parametrize("n, seed, spread", [(1, 1, timedelta(days=1)), (2, 2, timedelta(days=9)),
                                             (200, 3, timedelta(days=3000)), (5000, 4, timedelta(days=400)),
                                             (50, 5, timedelta(0))])
def test_the_compact_line_draws_what_the_full_line_draws(n, seed, spread):
    pts = points(n, seed, spread)
    full, compact = preview.history(pts), preview.history(pts, compact=True)
    # Everything but the line is the same.
    assert full.replace(path_of(full), "") == compact.replace(path_of(compact), "")
    d = path_of(compact)
    assert re.fullmatch(r"M\d+ \d+(?:[hv]-?\d+)*", d), d       # whole units, relative moves
    a, b = absolute(path_of(full)), absolute(d)
    assert abs(a[0][0] - b[0][0]) <= 0.5 and abs(a[0][1] - b[0][1]) <= 0.5
    assert abs(a[-1][0] - b[-1][0]) <= 0.55 and abs(a[-1][1] - b[-1][1]) <= 0.55
    # Every stroke of the full line is drawn within half a unit, the highest and lowest levels
    # (spikes) included, and the compact line draws nothing the full one does not.
    want, got = strokes(a), strokes(b)
    for x, lo, hi in want:
        near = [(lo_, hi_) for x_, lo_, hi_ in got if abs(x_ - x) <= 0.55]
        if hi - lo < 1 and not near:
            continue            # shorter than a unit: a point in whole units
        assert near and min(v[0] for v in near) <= lo + 0.55 and max(v[1] for v in near) >= hi - 0.55, (x, lo, hi)
    for x, lo, hi in got:
        near = [(lo_, hi_) for x_, lo_, hi_ in want if abs(x_ - x) <= 0.55]
        assert near and min(v[0] for v in near) <= lo + 0.55 and max(v[1] for v in near) >= hi - 0.55, (x, lo, hi)
    # At most four vertices a unit: one move across, three up or down.
    per_unit: dict[int, int] = {}
    for x, _ in b[1:]:
        per_unit[round(x)] = per_unit.get(round(x), 0) + 1
    assert max(per_unit.values(), default=0) <= 4
    if n >= 200:
        assert len(d) < len(path_of(full)) / 2


def test_a_small_leagues_line_is_unchanged():
    pts = [(START, 1500.0), (START + timedelta(days=1), 1512.25), (START + timedelta(days=3), 1490.0)]
    assert path_of(preview.history(pts)) == "M0.0 543.6H333.3V69.0H1000.0V931.0"
    assert path_of(preview.history(pts, compact=True)) == "M0 544h333v-475h667v862"
