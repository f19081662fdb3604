"""Static previews of the charts, drawn as SVG when the site is built.

A chart's box shows its preview from the first paint, and keeps it if scripts
never run; the interactive Vega chart replaces it once its bundle has loaded.
Rendering every chart with Vega at build time would cost tens of milliseconds a
page, minutes for a big league: these are plain strings, microseconds each.

Geometry: an inner SVG stretched over the box (``preserveAspectRatio="none"``,
unit coordinates 0..1000) holds the lines and bars, so a preview fills any
width; labels sit in the outer SVG at percentages, so their text keeps its size
(12 px, set by the stylesheet) whatever the width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from html import escape

import numpy as np

from sitegen.model.accuracy import CalibrationBin
from sitegen.model.board import Bin
from sitegen.output.render import fmt_date

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)

PLOT = 86.0          # the plot's share of the box's height, in percent; the x labels take the rest
TICKS = 4            # about this many horizontal grid lines


def _scale(lo: float, hi: float, v: float, size: float = 1000.0) -> float:
    return size / 2 if hi == lo else (v - lo) / (hi - lo) * size


def _ticks(lo: float, hi: float) -> list[float]:
    """Round values between lo and hi for the grid lines."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / TICKS
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(lo / step + 1) * step
    out: list[float] = []
    v = first
    while v < hi and len(out) < 2 * TICKS:
        out.append(round(v, 9))
        v += step
    return out


def _label(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 or float(v).is_integer() else f"{v:,.2f}"


def _frame(plot: str, labels: list[str]) -> str:
    return ('<svg class="preview" width="100%" height="100%" aria-hidden="true" focusable="false">'
            f'<svg width="100%" height="{PLOT:g}%" viewBox="0 0 1000 1000" preserveAspectRatio="none">'
            f'{plot}</svg>{"".join(labels)}</svg>')


def _grid(lo: float, hi: float, label=_label) -> tuple[str, list[str]]:
    """Horizontal grid lines with their values written just above them, at the left."""
    lines, labels = [], []
    for v in _ticks(lo, hi):
        y = 1000 - _scale(lo, hi, v)
        lines.append(f'<line class="grid" x1="0" x2="1000" y1="{y:.1f}" y2="{y:.1f}"/>')
        labels.append(f'<text x="2" y="{y / 1000 * PLOT - 1.2:.2f}%">{escape(label(v))}</text>')
    return "".join(lines), labels


def _x_labels(first: str, last: str) -> list[str]:
    return [f'<text x="0" y="98%">{escape(first)}</text>',
            f'<text x="100%" y="98%" text-anchor="end">{escape(last)}</text>']


def _steps(rx: list[int], ry: list[int]) -> str:
    """A step line's path in whole units (``rx``, ``ry``: each point's, rounded once), at most four
    vertices a unit of x: the points of one unit (x in time order, so they follow each other) are
    a vertical stroke at that x from the level before them through every level to the last, which
    its lowest and highest level draw as well, so a spike stays. Relative moves (``h3v-12``): a
    third of the bytes of ``H123.4V567.8`` a game, for a shift of at most half a unit (a pixel of
    a chart 1000 wide)."""
    x = rx[0]
    y = ry[0]
    d = [f"M{x} {y}"]
    i, n = 1, len(rx)
    while i < n:
        bx = rx[i]
        j = i + 1
        while j < n and rx[j] == bx:
            j += 1
        if bx != x:
            d.append(f"h{bx - x}")
        x = bx
        levels = ry[i:j]
        for v in (min(levels), max(levels), levels[-1]) if j - i > 2 else levels:
            if v != y:
                d.append(f"v{v - y}")
                y = v
        i = j
    if n == 1:
        d.append(f"h{1000 - x}")
    return "".join(d)


def history(points: Sequence[tuple[datetime, float]], compact: bool = False) -> str:
    """A player's rating after each rated game, a step line over time, dates with their year;
    ``compact`` (a big league, model/scale.py) draws the line in whole units (``_steps``).
    ``history_columns`` of the points: a player page reads them as columns (career.chart)."""
    if not points:
        return ""
    micros = np.fromiter(((t - _EPOCH) // _MICROSECOND for t, _ in points), dtype=np.int64, count=len(points))
    ratings = np.fromiter((y for _, y in points), dtype=np.float64, count=len(points))
    return history_columns(micros, ratings, points[0][0], points[-1][0], compact)


def history_columns(micros: np.ndarray, ratings: np.ndarray, first: datetime | None, last: datetime | None,
                    compact: bool = False) -> str:
    """``history`` of the points as columns (career.ChartPoints): each game's time in microseconds
    since the epoch, its rating after, and the first and last game's times. Each step is one
    float operation over the whole column: a time's ``timestamp()`` is its microseconds over
    10**6, and numpy's rint rounds half to even as round() does."""
    if not len(micros) or first is None or last is None:
        return ""
    values = ratings.tolist()
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or 1.0
    lo, hi = lo - pad, hi + pad
    ts = micros / 1e6
    x0, x1 = float(ts[0]), float(ts[-1])
    dx, dy = x1 - x0, hi - lo
    xs = (ts - x0) / dx * 1000.0 if dx else np.full(len(ts), 500.0)
    ys = 1000 - (ratings.astype(np.float64) - lo) / dy * 1000.0 if dy else np.full(len(ts), 1000 - 500.0)
    # Step after: the rating holds until the next game changes it.
    if compact:
        path = _steps(np.rint(xs).astype(np.int64).tolist(), np.rint(ys).astype(np.int64).tolist())
    else:
        path = _full_path(xs.tolist(), ys.tolist())
    return _drawn(lo, hi, path, first, last)


def _full_path(xs: list[float], ys: list[float]) -> str:
    d = [f"M{xs[0]:.1f} {ys[0]:.1f}"]
    d += [f"H{x:.1f}V{y:.1f}" for x, y in zip(xs[1:], ys[1:])]
    if len(xs) == 1:
        d.append("H1000")
    return "".join(d)


def _drawn(lo: float, hi: float, path: str, first: datetime, last: datetime) -> str:
    grid, labels = _grid(lo, hi)
    plot = f'{grid}<path class="line" d="{path}"/>'
    return _frame(plot, labels + _x_labels(fmt_date(first), fmt_date(last)))     # strftime's text, faster


def distribution(bins: Sequence[Bin]) -> str:
    """A league's rating histogram: one bar per bin."""
    if not bins:
        return ""
    top = max(b.count for b in bins) or 1
    width = 1000 / len(bins)
    bars = "".join(
        f'<rect class="bar" x="{i * width + 1:.1f}" y="{1000 - b.count / top * 1000:.1f}" '
        f'width="{max(width - 2, 1):.1f}" height="{b.count / top * 1000:.1f}"/>'
        for i, b in enumerate(bins) if b.count)
    grid, labels = _grid(0, top)
    return _frame(grid + bars, labels + _x_labels(f"{bins[0].low:g}", f"{bins[-1].high:g}"))


def curves(series: Sequence[Sequence[tuple[float, float]]], x_first: str, x_last: str) -> str:
    """A spec page's curves: one line per series, in the palette's order."""
    values = [y for s in series for _, y in s]
    xs = [x for s in series for x, _ in s]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    x0, x1 = min(xs), max(xs)
    grid, labels = _grid(lo, hi)
    paths = []
    for i, s in enumerate(series):
        d = "".join(("M" if j == 0 else "L") + f"{_scale(x0, x1, x):.1f} {1000 - _scale(lo, hi, y):.1f}"
                    for j, (x, y) in enumerate(s))
        paths.append(f'<path class="line s{i % 6}" d="{d}"/>')
    return _frame(grid + "".join(paths), labels + _x_labels(x_first, x_last))


def calibration(bins: Sequence[CalibrationBin]) -> str:
    """A calibration chart: the diagonal of perfect calibration, then each bin's mean
    predicted chance against its mean result as a line through points, both axes 0 to 100%."""
    filled = [b for b in bins if b.predictions]
    if not filled:
        return ""
    grid, labels = _grid(0.0, 1.0, lambda v: f"{v:.0%}")
    xy = [(float(b.predicted or 0) * 1000, 1000 - float(b.observed or 0) * 1000) for b in filled]
    d = "".join(("M" if i == 0 else "L") + f"{x:.1f} {y:.1f}" for i, (x, y) in enumerate(xy))
    # Dots as round caps of empty segments: a circle would be stretched with the plot's box,
    # a stroke that does not scale stays round at any width.
    dots = "".join(f"M{x:.1f} {y:.1f}h0" for x, y in xy)
    plot = (f'{grid}<line class="diagonal" x1="0" y1="1000" x2="1000" y2="0"/>'
            f'<path class="line" d="{d}"/><path class="dots" d="{dots}"/>')
    return _frame(plot, labels + _x_labels("0%", "100%"))
