"""The accuracy page (leagues/<slug>/accuracy/): the league's predictions by year against a
coin flip and the system's default parameters (plain Elo K = 20 where the league uses the
defaults), and the calibration chart with its preview and its table.

Figures on the page are read back and recomputed from the data files (accuracy.csv,
changes.csv) or from a second build of the same matches with other parameters.
"""

from __future__ import annotations

import html
import itertools
import json
import math
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.accuracy import BINS, Prediction, calibration, coin_flip, right_side, summarize
from sitegen.model.baselines import compare, plain_elo
from sitegen.commands.build import build, check, rate
from helpers import REPO, elo_match, league_data, league_toml, read_csv, write_files
from served import serving


def elo_history(seed: int = 7, n: int = 60, draws: bool = True) -> str:
    """A deterministic elo history over two years among five players, draws included."""
    players = ["Ana", "Bo", "Cy", "Di", "Ed"]
    skill = {p: i for i, p in enumerate(players)}
    out, x = "", seed
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2 ** 31
        a, b = players[x % 5], players[(x // 5) % 5]
        if a == b:
            continue
        roll = (x // 25) % 10
        edge = skill[a] - skill[b]
        if draws and roll == 0:
            sa = 0.5
        else:
            sa = 1 if roll + edge >= 5 else 0
        year = 2024 + (i >= n // 2)
        out += elo_match(f"{year}-{1 + i % 12:02d}-{1 + i % 27:02d}T12:00:00Z", a, sa, b, 1 - sa)
    return out


def page_tables(page: str) -> dict[str, list[list[str]]]:
    """Each measure table of the page by its section id: rows of cell texts (header row first)."""
    out = {}
    for key in ("log_loss", "brier", "accuracy"):
        section = page[page.index(f'<section aria-labelledby="{key}-h">'):]
        section = section[:section.index("</section>")]
        rows = re.findall(r"<tr>(.*?)</tr>", section, re.S)
        out[key] = [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r)]
                    for r in rows]
    return out


def site_with(tmp_path: Path, name: str, params: str, matches: str, system: str = "elo",
              league_name: str = "Test League") -> Path:
    return write_files(tmp_path / name, {
        "matches/l/league.toml": league_toml(system, name=league_name, params=params),
        "matches/l/m.toml": matches,
    })


@pytest.fixture(scope="module")
def ranked(tmp_path_factory) -> Path:
    """The demo's ranked-battle league on its own, built with the default theme."""
    root = tmp_path_factory.mktemp("ranked") / "site"
    shutil.copytree(REPO / "matches" / "ranked-battle", root / "matches" / "ranked-battle")
    shutil.copy(REPO / "matches" / "players.toml", root / "matches" / "players.toml")
    build(root, root / "_site")
    return root


def test_the_page_figures_recompute_from_accuracy_csv_and_changes_csv(ranked):
    site = ranked / "_site"
    page = (site / "leagues" / "ranked-battle" / "accuracy" / "index.html").read_text(encoding="utf-8")
    acc = read_csv((site / "data" / "ranked-battle" / "accuracy.csv").read_text(encoding="utf-8"))
    changes = read_csv((site / "data" / "ranked-battle" / "changes.csv").read_text(encoding="utf-8"))
    tables = page_tables(page)
    assert tables["log_loss"][0] == ["Period", "Predictions", "These ratings", "Default parameters", "Coin flip"]
    # The first row of each event is the first listed player: E and S of each prediction.
    preds = {}
    for _, rows in itertools.groupby(changes, key=lambda r: r["event"]):
        first = next(rows)
        preds.setdefault(first["played"][:4], []).append((float(first["expected"]), float(first["score"])))
    preds["all"] = [p for y in sorted(k for k in preds if k != "all") for p in preds[y]]
    assert len(acc) == len(tables["log_loss"]) - 1 >= 3
    for r, ll, br, share in zip(acc, tables["log_loss"][1:], tables["brier"][1:], tables["accuracy"][1:]):
        period = "All time" if r["period"] == "all" else r["period"]
        assert ll[:2] == br[:2] == share[:2] == [period, r["predictions"]]
        assert ll[2] == f"{float(r['log_loss']):.4f}" and br[2] == f"{float(r['brier']):.4f}"
        ps = preds[r["period"]]
        hits = sum(0.5 if e == 0.5 or s == 0.5 else float((e > 0.5) == (s > 0.5)) for e, s in ps)
        assert share[2] == f"{100 * hits / len(ps):.1f}%"
        # Coin flip: ln 2 whatever happened; Brier (0.5 - S)^2, 0.25 unless a draw; half right.
        assert ll[4] == "0.6931" and share[4] == "50.0%"
        assert br[4] == f"{sum((0.5 - s) ** 2 for _, s in ps) / len(ps):.4f}"
    assert 'href="../../../data/ranked-battle/accuracy.csv"' in page


def test_the_league_page_links_its_accuracy_page(ranked):
    league = (ranked / "_site" / "leagues" / "ranked-battle" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../leagues/ranked-battle/accuracy/"' in league
    accuracy = (ranked / "_site" / "leagues" / "ranked-battle" / "accuracy" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../../leagues/ranked-battle/"' in accuracy      # and back


def test_the_coin_flip_scores_ln2_and_a_quarter_exactly(tmp_path):
    root = site_with(tmp_path, "s", "", elo_history(draws=False))
    rated = rate(check(root))[0]
    coin = next(m for m in compare(rated).models if m.key == "coin-flip")
    for row in coin.rows:
        assert row.predictions > 0
        assert abs(row.log_loss - math.log(2)) < 1e-12 and f"{row.log_loss:.6f}" == "0.693147"
        assert row.brier == 0.25 and row.accuracy == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(2000, 2003), st.floats(0, 1), st.sampled_from([0.0, 1.0])),
                min_size=1, max_size=60))
def test_the_coin_flip_of_any_decided_predictions_is_ln2_and_a_quarter(items):
    preds = [Prediction(y, e, s, "A", "B", str(i)) for i, (y, e, s) in enumerate(items)]
    for row in summarize(coin_flip(preds)):
        assert abs(row.log_loss - math.log(2)) < 1e-12
        assert row.brier == 0.25 and row.accuracy == 0.5


def test_the_default_baseline_is_a_build_with_default_parameters(tmp_path):
    matches = elo_history()
    own = site_with(tmp_path, "own", "k = 32\ninitial = 2000\nk_of = \"each\"", matches)
    plain = site_with(tmp_path, "plain", "", matches)
    models = compare(rate(check(own))[0]).models
    assert [m.key for m in models] == ["league", "default", "coin-flip"]
    expected = read_csv(league_data(plain, "l")["accuracy.csv"])
    got = models[1].rows
    assert [(a.period, str(a.predictions), f"{a.log_loss:.6f}", f"{a.brier:.6f}") for a in got] == \
        [(r["period"], r["predictions"], r["log_loss"], r["brier"]) for r in expected]
    # And the page names what differs from the defaults.
    build(own, own / "_site")
    page = (own / "_site" / "leagues" / "l" / "accuracy" / "index.html").read_text(encoding="utf-8")
    assert "<code>k = &#34;fide&#34;</code> instead of <code>32</code>" in page or \
        '<code>k = "fide"</code> instead of <code>32</code>' in page
    assert page_tables(page)["log_loss"][1][3] == f"{float(expected[0]['log_loss']):.4f}"


def test_the_default_baseline_of_placement_is_a_build_without_params(tmp_path):
    places = ""
    names = ["P1", "P2", "P3", "P4"]
    for i in range(12):
        order = names[i % 4:] + names[:i % 4]
        players = ", ".join(f'{{ name = "{n}", place = {1 + j if j != 3 else 3} }}' for j, n in enumerate(order))
        places += f"[[match]]\nplayed = 2025-01-{1 + i:02d}\nplayers = [{players}]\n\n"
    own = site_with(tmp_path, "own", "initial = 1500\nk = 32\nnormalize = true", places, system="placement")
    plain = site_with(tmp_path, "plain", "", places, system="placement")
    default = next(m for m in compare(rate(check(own))[0]).models if m.key == "default")
    expected = read_csv(league_data(plain, "l")["accuracy.csv"])
    assert [(f"{a.log_loss:.6f}", f"{a.brier:.6f}") for a in default.rows] == \
        [(r["log_loss"], r["brier"]) for r in expected]


def test_a_league_on_the_defaults_is_compared_with_plain_elo_k20(tmp_path):
    matches = elo_history()
    # k = "fide" written out is still the default: the replay would repeat the league.
    own = site_with(tmp_path, "own", 'k = "fide"', matches)
    k20 = site_with(tmp_path, "k20", "k = 20", matches)
    models = compare(rate(check(own))[0]).models
    assert [m.key for m in models] == ["league", "plain-elo", "coin-flip"]
    # Plain Elo on the first listed player's pairs is the elo system with a fixed K of 20.
    expected = read_csv(league_data(k20, "l")["accuracy.csv"])
    assert [(f"{a.log_loss:.6f}", f"{a.brier:.6f}") for a in models[1].rows] == \
        [(r["log_loss"], r["brier"]) for r in expected]


def test_plain_elo_rates_the_pairs_of_one_match_together():
    # Three pairs of one match, then one pair of the next: the second match sees all three updates.
    preds = [Prediction(2025, 0.0, s, a, b, "m1") for a, b, s in (("A", "B", 1.0), ("A", "C", 1.0), ("B", "C", 0.5))]
    preds.append(Prediction(2025, 0.0, 1.0, "A", "B", "m2"))
    out = list(plain_elo(preds))
    assert [p.expected for p in out[:3]] == [0.5, 0.5, 0.5]
    # A gained 10 + 10, B lost 10 and drew: A is 30 above B.
    assert out[3].expected == pytest.approx(1 / (1 + 10 ** (-30 / 400)))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.sampled_from(["A", "B", "C"]),
                          st.sampled_from(["A", "B", "C"])), max_size=80))
def test_calibration_bins_hold_every_prediction_once(items):
    preds = [Prediction(2025, e, s, a, b, str(i)) for i, (e, s, a, b) in enumerate(items)]
    bins = calibration(preds)
    assert len(bins) == BINS and sum(b.predictions for b in bins) == len(preds)
    for b in bins:
        assert (b.predicted is None) == (b.observed is None) == (b.predictions == 0)
        if b.predictions:
            assert b.low - 1e-9 <= b.predicted <= b.high + 1e-9 and 0 <= b.observed <= 1 + 1e-9


def test_calibration_reads_each_pair_from_the_first_name():
    # Placement predicts the better placed player, S = 1 by construction: from the first name
    # the chart sees one win and one loss.
    preds = [Prediction(2025, 0.8, 1.0, "Zed", "Amy", "m1"), Prediction(2025, 0.8, 1.0, "Amy", "Zed", "m2")]
    bins = {round(b.low, 1): b for b in calibration(preds) if b.predictions}
    assert sorted(bins) == [0.2, 0.8] and bins[0.2].observed == 0.0 and bins[0.8].observed == 1.0
    assert right_side(0.5, 1.0) == right_side(0.7, 0.5) == 0.5 and right_side(0.3, 0.0) == 1.0


def test_the_calibration_chart_has_its_preview_spec_and_table(ranked):
    page = (ranked / "_site" / "leagues" / "ranked-battle" / "accuracy" / "index.html").read_text(encoding="utf-8")
    box = re.search(r'<div class="vega" data-spec="calibration-spec"[^>]*>(.*?)</div>', page, re.S)
    assert box and box.group(1).startswith('<svg class="preview"') and 'class="dots"' in box.group(1)
    spec = json.loads(re.search(r'<script type="application/json" id="calibration-spec">(.*?)</script>',
                                page, re.S).group(1))
    rows = spec["datasets"]["calibration"]
    table = page[page.index('<table class="calibration">'):]
    table = table[:table.index("</table>")]
    cells = re.findall(r'<tr><th scope="row">(.*?)</th><td class="num">(\d+)</td>', table)
    assert len(cells) == BINS and cells[0][0] == "0% to 10%" and cells[-1][0] == "90% to 100%"
    total = int(read_csv((ranked / "_site" / "data" / "ranked-battle" / "accuracy.csv")
                         .read_text(encoding="utf-8"))[0]["predictions"])
    assert sum(int(n) for _, n in cells) == total
    assert [r["predictions"] for r in rows] == [int(n) for _, n in cells if int(n)]
    assert all(0 <= r["predicted"] <= 1 and 0 <= r["observed"] <= 1 for r in rows)


def test_the_page_is_escaped_and_arena_has_none(tmp_path):
    name = '<script>alert("x")</script> & Co'
    root = write_files(tmp_path / "s", {
        "matches/l/league.toml": f"name = {json.dumps(name)}\nsystem = \"elo\"\n",
        "matches/l/m.toml": elo_match("2025-01-01", "<b>A</b>", 1, "B & C", 0),
        "matches/a/league.toml": 'name = "Arena"\nsystem = "arena"\n',
        "matches/a/m.toml": '[[match]]\nplayed = 2025-01-01\nscore_to_win = 1\n'
                            'teams = [{ won = true, players = [{ name = "X", kills = 1, deaths = 0 }] },'
                            ' { won = false, players = [{ name = "Y", kills = 0, deaths = 1 }] }]\n',
    })
    build(root, root / "_site")
    page = (root / "_site" / "leagues" / "l" / "accuracy" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "&lt;script&gt;alert(" in page
    assert "<b>A</b>" not in page
    assert not (root / "_site" / "leagues" / "a" / "accuracy").exists()


@pytest.mark.browser
def test_the_calibration_chart_is_drawn_in_the_browser(ranked, browser):
    """Vega replaces the preview with one point per filled bin; nothing fails on the page."""
    with serving(ranked / "_site") as root:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        try:
            problems: list[str] = []
            page = context.new_page()
            page.on("console", lambda msg: msg.type == "error" and problems.append(msg.text))
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            assert page.goto(root + "leagues/ranked-battle/accuracy/").status == 200
            box = page.locator("div.vega[data-spec=calibration-spec]")
            assert box.locator("svg.preview").count() == 1          # before Vega has drawn anything
            box.scroll_into_view_if_needed()
            page.wait_for_function("() => document.querySelector('div.vega.drawn .vega-live svg, "
                                   "div.vega.drawn .vega-live canvas') !== null", timeout=20000)
            counts = page.locator("table.calibration tbody tr td:nth-of-type(1)").all_inner_texts()
            filled = sum(1 for n in counts if int(n))
            assert box.locator("svg g.mark-symbol path").count() == filled > 0
            # No table leaves the phone's width.
            assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
            assert not problems, problems
        finally:
            context.close()
