"""Regenerate the history chart's vendored files: ``python scripts/vendor_vega_runtime.py``.

A player page draws one chart, the rating history, with the same spec for every
player. Compiling that Vega-Lite spec in the browser needs the whole of
assets/vega.js (Vega, the Vega-Lite compiler and vega-embed, 900 KB), and the
compile and the drawing block a phone's main thread for most of a second on
the busiest pages. So the compile is done here, once, and the page loads only
what draws a compiled spec (site.js runs it in short steps and formats a
point's tooltip only when the point is hovered):

* ``templates/assets/history.vg.json``: ``charts.history_spec()`` compiled to
  Vega for each x axis the page offers (date, game number) and for the light
  and the dark colour scheme (vega-themes' "dark", the theme vega-embed
  applies to the other charts), with the name of the dataset site.js fills;
* ``templates/assets/vega-runtime.js``: Vega's parser, dataflow, view and
  renderers with its core transforms, and vega-tooltip's handler (the tooltip
  the other charts get from vega-embed), bundled by vl-convert-python, byte for
  byte as it writes it; it defines ``window.vega`` (``View``, ``parse``) and
  ``window.vegaTooltip`` (``Handler``);
* ``templates/assets/vega-runtime.LICENSES.txt``: what the bundle holds and
  where its licences are.

vl-convert-python (the scripts and test extras; an 84 MB install) is needed
only here, never by a build. tests/test_vega_runtime.py regenerates all three
and fails when a vendored file differs, so a change to the chart's spec that
is not followed by this script cannot go unnoticed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ASSETS = REPO / "templates" / "assets"
COMPILED = ASSETS / "history.vg.json"
RUNTIME = ASSETS / "vega-runtime.js"
LICENSES = ASSETS / "vega-runtime.LICENSES.txt"

# The versions vega.js was bundled with (see vega.LICENSES.txt): both bundles come from the
# same vl-convert release, so the charts of a site are drawn by one Vega.
VL_CONVERT = "1.9.0"
VEGA = "6.2.0"
# vl-convert resolves these module addresses from the copies inside its own package (nothing
# is downloaded): Vega's parts rather than the whole of vega@6.2.0, so that the geographic,
# hierarchy, force, label, regression, Voronoi and word-cloud transforms, which no chart of
# the site uses, are left out (444 KB instead of 590 KB).
CDN = "https://cdn.jsdelivr.net/npm/"
MODULES = {
    "View": "vega-view@6.1.0",
    "transforms": "vega-dataflow@6.1.0",
    "parse": "vega-parser@7.1.0",
    "Handler": "vega-tooltip@1.0.0",
}
# Registered in Vega's transform registry as Vega's own index does with all of its packages.
TRANSFORMS = ("vega-transforms@5.1.0", "vega-view-transforms@5.1.0", "vega-encode@5.1.0")

SNIPPET = "".join(
    [f'import {{ {", ".join(n for n, m in MODULES.items() if m == module)} }} from "{CDN}{module}/+esm";\n'
     for module in dict.fromkeys(MODULES.values())]
    + [f'import * as t{i} from "{CDN}{module}/+esm";\n' for i, module in enumerate(TRANSFORMS)]
    + [f"Object.assign(transforms, {', '.join(f't{i}' for i in range(len(TRANSFORMS)))});\n",
       "window.vega = { View, parse };\n",
       "window.vegaTooltip = { Handler };\n"]
)

LICENSE_TEXT = f"""vega-runtime.js: the parts of Vega {VEGA} that draw a compiled Vega spec (vega-view,
vega-parser, vega-dataflow, vega-transforms, vega-view-transforms, vega-encode and their
dependencies) and vega-tooltip 1.0.0, in one file. It is the bundle vl-convert-python
{VL_CONVERT}.post1 writes, unchanged, for this snippet (scripts/vendor_vega_runtime.py):

{SNIPPET}
The bundle drops the licence comments of its sources. Every package it is built from is
also in vega.js; their licences are in vega.LICENSES.txt, beside this file.
"""

# The x axes of the page's switch, in the order of usermeta.x.
AXES = ("date", "game")
THEMES = {"light": None, "dark": "dark"}
# The d3 time format directives a tooltip's date may use: years to minutes, which the time unit
# the chart floors its dates with (to the minute) leaves as they are.
MINUTE_UNITS = set("YmdHM")


def tooltip_fields(vl: dict[str, Any]) -> list[dict[str, Any]]:
    """The tooltip's fields as site.js formats them when a point is hovered.

    Vega-Lite has every point compute its tooltip as the chart is drawn, which on a history of
    a thousand games was a third of the dataflow's work; the page computes the one hovered, with
    the same formats (Vega's own locale): ``utc`` a d3 time format for a UTC date, ``format`` a
    d3 number format, neither the value as text."""
    layers = [layer for layer in vl["layer"] if "tooltip" in layer.get("encoding", {})]
    if len(layers) != 1:
        raise SystemExit("the history chart should have one layer with a tooltip")
    fields = []
    for t in layers[0]["encoding"]["tooltip"]:
        field = {"title": t["title"], "field": t["field"]}
        if t["type"] == "temporal":
            unit, fmt = t.get("timeUnit", ""), t.get("format", "")
            # Flooring to the minute changes nothing that a format of minutes or coarser shows.
            if not unit.startswith("utc") or not fmt or not set(re.findall(r"%[-_0]?(.)", fmt)) <= MINUTE_UNITS:
                raise SystemExit(f"tooltip {t}: only UTC dates shown to the minute are supported")
            field["utc"] = fmt
        elif t["type"] == "quantitative":
            field["format"] = t.get("format", "")
        elif t["type"] != "nominal" or "format" in t:
            raise SystemExit(f"tooltip {t}: not a kind site.js formats")
        fields.append(field)
    return fields


def _lazy_tooltip(vg: dict[str, Any]) -> None:
    """The compiled spec with the point's datum as its tooltip, and without the time units that
    only the tooltip read."""
    tips = [m for m in vg["marks"] if "tooltip" in m["encode"]["update"]]
    if len(tips) != 1:
        raise SystemExit("the compiled history chart should have one mark with a tooltip")
    tips[0]["encode"]["update"]["tooltip"] = {"signal": "datum"}
    for data in vg["data"]:
        for tx in [t for t in data.get("transform", []) if t["type"] == "timeunit"]:
            at = data["transform"].index(tx)
            del data["transform"][at]
            if any(name in json.dumps(vg) for name in tx["as"]):
                data["transform"].insert(at, tx)          # still read by something else


def compiled_specs() -> dict[str, Any]:
    """The history chart as Vega: ``{"dataset": name, "tooltip": fields, "light": {"date": spec,
    "game": spec}, "dark": {...}}``."""
    import vl_convert

    from sitegen.output.charts import history_spec

    vl = history_spec()
    meta = vl.pop("usermeta")
    out: dict[str, Any] = {"dataset": meta["dataset"], "tooltip": tooltip_fields(vl)}
    for theme, name in THEMES.items():
        out[theme] = {}
        for axis in AXES:
            spec = {**vl, "encoding": {**vl["encoding"], "x": meta["x"][axis]}}
            vg = vl_convert.vegalite_to_vega(spec, theme=name)
            _lazy_tooltip(vg)
            if name:
                # The page's own background shows through, as site.js has vega-embed's charts do.
                vg["background"] = "transparent"
            out[theme][axis] = vg
    return out


def compiled_json() -> str:
    return json.dumps(compiled_specs(), sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def runtime_bundle() -> str:
    import vl_convert

    return vl_convert.javascript_bundle(SNIPPET)


def check_versions() -> None:
    import vl_convert

    if vl_convert.get_vega_version() != VEGA:
        raise SystemExit(f"vl-convert-python bundles Vega {vl_convert.get_vega_version()}, not {VEGA}: "
                         f"install vl-convert-python=={VL_CONVERT}.post1")


def main() -> int:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    check_versions()
    COMPILED.write_text(compiled_json(), encoding="utf-8")
    RUNTIME.write_text(runtime_bundle(), encoding="utf-8")
    LICENSES.write_text(LICENSE_TEXT, encoding="utf-8")
    for f in (COMPILED, RUNTIME, LICENSES):
        print(f"{f.relative_to(REPO)}: {f.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
