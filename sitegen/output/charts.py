"""Charts as Vega-Lite specs, drawn in the browser by the site's own Vega bundle.

Each kind of chart is built with Altair once per build; a page only adds its
own rows as a named dataset. Building one Altair object per player costs
milliseconds each, which is minutes for a large league. The specs every build
draws (rating history, distribution, calibration) are kept in the build cache
under Altair's version (``load_specs``): importing Altair is 0.5-1 s of a
rebuild's start, and a rebuild that finds them there does not import it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sitegen.load.cache import Cache

HISTORY = "history"
# Labels and titles at 12 px (Vega's default is 10 and 11): readable on a phone.
FONT = {"labelFontSize": 12, "titleFontSize": 12}
LEGEND_FONT = {"labelFontSize": 12, "titleFontSize": 12}
# The first tick of a date axis says its year: Vega's own labels name the year only where
# one begins ("April, July, October, 2026"), so a chart of one season would never say which.
FIRST_WITH_YEAR = ("datum.index === 0 && indexof(datum.label, utcFormat(datum.value, '%Y')) < 0"
                   " ? datum.label + ' ' + utcFormat(datum.value, '%Y') : datum.label")


def _configured(chart: Any) -> dict[str, Any]:
    return chart.configure_axis(**FONT).configure_legend(**LEGEND_FONT).to_dict()


def _make_history() -> dict[str, Any]:
    import altair as alt
    data = alt.Data(name=HISTORY)
    # Times in UTC, as everywhere else on the site; Vega would otherwise show the viewer's local time.
    by_date = alt.X("date:T", title=None, axis=alt.Axis(labelOverlap=True, tickCount=6, labelExpr=FIRST_WITH_YEAR),
                    scale=alt.Scale(type="utc"))
    by_game = alt.X("game:Q", title="Game", axis=alt.Axis(format="d", tickMinStep=1, labelOverlap=True),
                    scale=alt.Scale(zero=False, nice=False))
    tooltip = [
        alt.Tooltip("utcyearmonthdatehoursminutes(date):T", title="Date (UTC)", format="%Y-%m-%d %H:%M"),
        alt.Tooltip("game:Q", title="Game"),
        alt.Tooltip("match:N", title="Match"),
        alt.Tooltip("opponent:N", title="Opponent"),
        alt.Tooltip("result:N", title="Result"),
        alt.Tooltip("rating:Q", title="Rating", format=",.1f"),
        alt.Tooltip("change:N", title="Change"),
    ]
    # aria=False: no description string for each point and step. The page's box is role=img with
    # its own label, which hides the chart's insides from screen readers, and those strings were
    # a third of the work of drawing a thousand-game history.
    chart = alt.layer(
        alt.Chart(data).mark_line(interpolate="step-after", strokeWidth=2, aria=False),
        alt.Chart(data).mark_point(filled=True, size=28, aria=False).encode(tooltip=tooltip),
    ).encode(
        x=by_date, y=alt.Y("rating:Q", title="Rating", scale=alt.Scale(zero=False)),
    # The page's CSS gives the chart its height, so drawing it moves nothing (no layout shift).
    ).properties(width="container", height="container")
    spec = _configured(chart)
    spec.pop("datasets", None)
    # Read by site.js: the page's axis switch puts one of these in encoding.x, and its
    # range buttons keep the rows of the dataset from a game number on.
    spec["usermeta"] = {"dataset": HISTORY, "x": {"date": spec["encoding"]["x"],
                                                  "game": by_game.to_dict()}}
    return spec


# Served once as an asset; each player page names it and its own data file (gamesdata.py),
# whose rated rows site.js puts into the dataset.
HISTORY_SPEC = "assets/history.vl.json"


def history_spec() -> dict[str, Any]:
    """The rating-history spec with an empty dataset, the same for every player."""
    spec = copy.copy(_spec("history"))
    spec["datasets"] = {HISTORY: []}
    return spec


def curve_chart(curve) -> dict[str, Any]:
    """A spec page's characteristic curve (``curves.Curve``): one line per series."""
    import altair as alt
    data = alt.Data(values=[dict(r) for r in curve.rows])
    color = alt.Color("series:N", title=curve.series_title or None, sort=curve.series,
                      legend=alt.Legend(orient="bottom", direction="vertical") if len(curve.series) > 1 else None)
    chart = alt.Chart(data).mark_line(strokeWidth=2).encode(
        x=alt.X("x:Q", title=curve.x_title, axis=alt.Axis(format=curve.x_format)),
        y=alt.Y("y:Q", title=curve.y_title, axis=alt.Axis(format=curve.y_format),
                scale=alt.Scale(zero=False)),
        color=color,
        tooltip=[alt.Tooltip("series:N", title=curve.series_title or "Curve"),
                 alt.Tooltip("x:Q", title=curve.x_title, format=curve.x_format),
                 alt.Tooltip("y:Q", title=curve.y_title, format=curve.y_format)],
    ).properties(width="container", height="container")
    return _configured(chart)


DISTRIBUTION = "distribution"


def _make_distribution() -> dict[str, Any]:
    import altair as alt
    data = alt.Data(name=DISTRIBUTION)
    chart = alt.Chart(data).mark_bar(binSpacing=1).encode(
        x=alt.X("low:Q", bin="binned", title="Rating", axis=alt.Axis(labelOverlap=True)),
        x2="high:Q",
        y=alt.Y("players:Q", title="Players", axis=alt.Axis(tickMinStep=1)),
        tooltip=[alt.Tooltip("range:N", title="Rating"), alt.Tooltip("players:Q", title="Players")],
    ).properties(width="container", height="container")
    spec = _configured(chart)
    spec.pop("datasets", None)
    return spec


def distribution_chart(bins) -> dict[str, Any]:
    """A league's rating histogram (``board.Bin`` values, computed once for the chart and its table)."""
    spec = copy.copy(_spec("distribution"))
    if bins:
        # Ticks on the bin bounds: the x encoding is copied, the shared spec left as it is.
        x = {**spec["encoding"]["x"], "bin": {"binned": True, "step": round(bins[0].high - bins[0].low, 9)}}
        spec["encoding"] = {**spec["encoding"], "x": x}
    spec["datasets"] = {DISTRIBUTION: [
        {"low": b.low, "high": b.high, "players": b.count, "range": f"{b.low:g} to below {b.high:g}"}
        for b in bins]}
    return spec


CALIBRATION = "calibration"


def _make_calibration() -> dict[str, Any]:
    import altair as alt
    data = alt.Data(name=CALIBRATION)
    percent = alt.Scale(domain=[0, 1], nice=False)
    x = alt.X("predicted:Q", title="Predicted chance", scale=percent, axis=alt.Axis(format="%", tickCount=5))
    y = alt.Y("observed:Q", title="Observed result", scale=percent, axis=alt.Axis(format="%", tickCount=5))
    # Where a perfectly calibrated rating would put every bin: what it predicts comes true as often.
    diagonal = alt.Chart(alt.Data(values=[{"predicted": 0, "observed": 0}, {"predicted": 1, "observed": 1}])
                         ).mark_line(strokeDash=[4, 4], color="#888", strokeWidth=1).encode(x=x, y=y)
    tooltip = [alt.Tooltip("range:N", title="Predicted"),
               alt.Tooltip("predictions:Q", title="Predictions", format=","),
               alt.Tooltip("predicted:Q", title="Mean predicted", format=".1%"),
               alt.Tooltip("observed:Q", title="Observed", format=".1%")]
    bins = alt.Chart(data).mark_line(strokeWidth=2, point=alt.OverlayMarkDef(filled=True, size=40)).encode(
        x=x, y=y, tooltip=tooltip)
    chart = alt.layer(diagonal, bins).properties(width="container", height="container")
    return _configured(chart)


def calibration_chart(bins) -> dict[str, Any]:
    """A league's calibration (``accuracy.CalibrationBin`` values): mean predicted chance of
    each bin against its mean result, the empty bins left out, beside the diagonal."""
    spec = copy.copy(_spec("calibration"))
    spec["datasets"] = {**spec.get("datasets", {}), CALIBRATION: [
        {"predicted": round(b.predicted, 6), "observed": round(b.observed, 6), "predictions": b.predictions,
         "range": f"{b.low:.0%} to {b.high:.0%}"}
        for b in bins if b.predictions]}
    return spec


# --- the shared specs, made once per build or read from the cache ----------------------------

_MAKERS: dict[str, Callable[[], dict[str, Any]]] = {
    "history": _make_history, "distribution": _make_distribution, "calibration": _make_calibration}
_made: dict[str, dict[str, Any]] = {}       # read, never written, by the callers (they copy)


def _spec(kind: str) -> dict[str, Any]:
    spec = _made.get(kind)
    if spec is None:
        spec = _made[kind] = _MAKERS[kind]()
    return spec


def load_specs(cache: Cache | None) -> None:
    """Make every shared spec now, before page workers are forked (they inherit them), taken
    from the build cache where an earlier build with this Altair left them. The key names
    Altair's version: another Altair may write another spec (the cache's keys cover sitegen's
    own code already)."""
    key = f"altair {version('altair')}"
    held = cache.get("charts", key) if cache is not None else None
    if isinstance(held, dict) and set(held) == set(_MAKERS):
        _made.update(held)
        return
    specs = {kind: _spec(kind) for kind in _MAKERS}
    if cache is not None:
        cache.put("charts", key, specs)
