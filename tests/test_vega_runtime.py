"""The history chart's vendored files are what scripts/vendor_vega_runtime.py writes today.

templates/assets/history.vg.json is ``charts.history_spec()`` compiled to Vega ahead of
time, so a change to that spec without running the script would leave player pages
drawing the old chart: the compile is redone here and compared byte for byte, and so are
the runtime bundle and its licence note. vl-convert-python (the test extra) does both.
"""

from __future__ import annotations

import json

import pytest

from helpers import load_script
RERUN = "python scripts/vendor_vega_runtime.py"

vl_convert = pytest.importorskip("vl_convert", reason="vl-convert-python (the test extra) is not installed")


script = load_script("vendor_vega_runtime")


def test_compiled_history_chart_is_current():
    assert script.COMPILED.read_text(encoding="utf-8") == script.compiled_json(), (
        f"{script.COMPILED.name} is not the compile of charts.history_spec(): run `{RERUN}`")


def test_runtime_bundle_and_its_licence_note_are_current():
    script.check_versions()
    assert script.RUNTIME.read_text(encoding="utf-8") == script.runtime_bundle(), f"run `{RERUN}`"
    assert script.LICENSES.read_text(encoding="utf-8") == script.LICENSE_TEXT, f"run `{RERUN}`"


def test_every_axis_and_theme_is_compiled_with_its_tooltip_left_to_the_page():
    compiled = json.loads(script.COMPILED.read_text(encoding="utf-8"))
    from sitegen.output.charts import history_spec

    meta = history_spec()["usermeta"]
    assert compiled["dataset"] == meta["dataset"]
    assert [f["title"] for f in compiled["tooltip"]] == [
        "Date (UTC)", "Game", "Match", "Opponent", "Result", "Rating", "Change"]
    for theme in ("light", "dark"):
        assert sorted(compiled[theme]) == sorted(meta["x"])
        for axis, spec in compiled[theme].items():
            assert spec["data"][0] == {"name": meta["dataset"], "values": []}
            text = json.dumps(spec)
            # Each point's tooltip is its row; nothing is formatted or described for every point.
            assert text.count('"tooltip": {"signal": "datum"}') == 1
            assert "timeunit" not in text and "description" not in text
            fields = {s["field"] for s in json.loads(text)["scales"][0]["domain"]["fields"]}
            assert fields == {axis}, (theme, axis, fields)
    assert compiled["dark"]["date"]["background"] == "transparent"
    assert compiled["dark"]["date"]["config"]["axis"]["gridColor"] != compiled["light"]["date"]["config"].get(
        "axis", {}).get("gridColor")


def test_tooltip_kinds_the_page_cannot_format_are_refused():
    spec = {"layer": [{"encoding": {"tooltip": [{"field": "date", "type": "temporal", "title": "When",
                                                  "timeUnit": "utcyearmonthdatehoursminutesseconds",
                                                  "format": "%H:%M:%S"}]}}]}
    with pytest.raises(SystemExit, match="only UTC dates"):
        script.tooltip_fields(spec)
    spec["layer"][0]["encoding"]["tooltip"] = [{"field": "x", "type": "ordinal", "title": "X"}]
    with pytest.raises(SystemExit, match="not a kind"):
        script.tooltip_fields(spec)
