"""Charts as Vega-Lite specs, drawn in the browser by the site's own Vega bundle.

Each kind of chart is built with Altair once per build; a page only adds its
own rows as a named dataset. Building one Altair object per player costs
milliseconds each, which is minutes for a large league.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import altair as alt

HISTORY = "history"


@functools.cache
def _history_spec() -> dict[str, Any]:
    data = alt.Data(name=HISTORY)
    # Times in UTC, as everywhere else on the site; Vega would otherwise show the viewer's local time.
    base = alt.Chart(data).encode(
        x=alt.X("date:T", title=None, axis=alt.Axis(labelOverlap=True, tickCount=6),
              scale=alt.Scale(type="utc")),
        y=alt.Y("rating:Q", title="Rating", scale=alt.Scale(zero=False)),
    )
    tooltip = [
        alt.Tooltip("utcyearmonthdatehoursminutes(date):T", title="Date (UTC)", format="%Y-%m-%d %H:%M"),
        alt.Tooltip("match:N", title="Match"),
        alt.Tooltip("opponent:N", title="Opponent"),
        alt.Tooltip("result:N", title="Result"),
        alt.Tooltip("rating:Q", title="Rating", format=",.1f"),
        alt.Tooltip("change:N", title="Change"),
    ]
    chart = alt.layer(
        base.mark_line(interpolate="step-after", strokeWidth=2),
        base.mark_point(filled=True, size=28).encode(tooltip=tooltip),
    ).properties(width="container", height=260)
    spec = chart.to_dict()
    spec.pop("datasets", None)
    return spec


def history_chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The rating-history spec with one player's rows as its dataset."""
    spec = copy.copy(_history_spec())
    spec["datasets"] = {HISTORY: rows}
    return spec


def curve_chart(curve) -> dict[str, Any]:
    """A spec page's characteristic curve (``curves.Curve``): one line per series."""
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
    ).properties(width="container", height=280)
    return chart.to_dict()
