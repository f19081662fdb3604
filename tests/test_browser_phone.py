"""What a player sees first, in headless Chromium at 390 x 844 (and a 1366 px laptop).

On the demo site (this repository's matches/): the latest game's result and change
on the first screen of a busy player's page, the games list without sideways
scrolling, the leaderboard's first row on the first screen, no name, date or id
broken inside a word, chart boxes that are never empty (a preview drawn at build
time, then Vega's chart with labels of 11 px or more and a year on the first date
tick), match titles written for people, and the league page's layout.
"""

from __future__ import annotations

import csv
import re
from urllib.parse import urlsplit

import pytest

from test_browser import Tab, _site, sites, tab  # noqa: F401 - fixtures shared with the page tests

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}


def _busiest(site, league: str) -> str:
    from sitegen.model.views import player_slugs
    rows = site.standings(league)
    name = max(rows, key=lambda r: int(r["games"]))["player"]
    return f"leagues/{league}/players/{player_slugs([r['player'] for r in rows])[name]}/"


def _last_match(site, league: str) -> str:
    """The page of the match file holding the league's last match, at that match's anchor."""
    with open(site.folder / "data" / league / "matches.csv", encoding="utf-8", newline="") as f:
        frag = "m-" + list(csv.DictReader(f))[-1]["match_id"]
    for page in sorted((site.folder / "leagues" / league / "matches").rglob("index.html")):
        html = page.read_text(encoding="utf-8")
        # A match section, or a big league's compact row (model/scale.py).
        if f'<tbody id="{frag}">' in html or f'<tr id="{frag}">' in html:
            return f"{page.parent.relative_to(site.folder).as_posix()}/#{frag}"
    raise AssertionError(f"{league}: no page holds {frag}")


def _top(t: Tab) -> None:
    t.page.evaluate("window.scrollTo(0, 0)")


def _on_first_screen(t: Tab, selector: str) -> bool:
    box = t.page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] \
        and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


# Tables that scroll sideways inside their box although the phone shows them: none of the
# site's own (markdown tables in the spec's prose may, and are focusable to do it).
WIDE_TABLES = """() => [...document.querySelectorAll('.table-wrap')]
    .filter(w => !w.closest('.prose, details:not([open]), .curve-values, .history-values'))
    .filter(w => w.offsetParent !== null && w.scrollWidth > w.clientWidth + 1)
    .map(w => (w.querySelector('table') || w).className + ' ' + w.scrollWidth + '>' + w.clientWidth)"""

# Words of names, dates and ids broken over two lines: a line may end between words (or after
# the hyphen of a double name), never inside one (a long word ends in an ellipsis instead, with
# the full text as its title).
BROKEN = """sel => {
    const bad = [];
    for (const e of document.querySelectorAll(sel)) {
        if (e.offsetParent === null) continue;
        const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            // A word, or the part of a word up to a hyphen between letters (where a line may end).
            for (const m of n.data.matchAll(/\\S+?(?:-(?=\\p{L})|(?=\\s)|$)/gu)) {
                const r = document.createRange();
                r.setStart(n, m.index);
                r.setEnd(n, m.index + m[0].length);
                const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
                if (tops.size > 1) bad.push(m[0]);
            }
        }
    }
    return bad;
}"""
ONE_LINE = ("table.gl td a, table.mg th a, table.wins td a, table.h2h td a, table.board th a, table.mini th a, "
            "table.changes th a, .facts time, .facts code, td time, p.latest a")


def test_busy_player_shows_the_latest_result_and_change_first(sites, tab):
    site = _site(sites, "demo")
    t = tab("phone")
    for league in site.leagues():
        path = _busiest(site, league)
        assert t.open(site.url + path).status == 200
        _top(t)
        assert _on_first_screen(t, "p.latest .delta, p.latest .meta"), f"/{path}: latest change not on the first screen"
        # Every game's result and change without sideways scrolling.
        games = t.page.locator("table.gl")
        assert t.page.evaluate(WIDE_TABLES) == [], f"/{path}: a table scrolls sideways"
        first = games.locator("tbody tr").first
        for n in (1, 2, 3, 4):      # date, opponents, result, change
            box = first.locator("td").nth(n).bounding_box()
            assert box and box["width"] > 0 and box["x"] + box["width"] <= PHONE["width"], f"/{path}: {n} off screen"
        change = first.locator("td").nth(4).inner_text().strip()
        assert re.fullmatch(r"[+\u2212±]\d[\d,.]*|new|in .+", change), change
        # The rest is one tap away: the match (the date links to it), whose switch brings back
        # before, after and why.
        with t.page.expect_navigation(wait_until="load"):
            first.locator("a").first.click()
        frag = urlsplit(t.page.url).fragment
        if t.page.locator(f"tr#{frag}").count():
            # A big league's match page (model/scale.py): one compact row per match, the terms
            # in changes.csv. The row is on the first screen with both players and their change.
            row = t.page.locator(f"tr#{frag}")
            box = row.bounding_box()
            assert row.is_visible() and box and 0 <= box["y"] < PHONE["height"], t.page.url
            assert row.locator("a").count() >= 2 and re.search(r"[+\u2212±]\d", row.inner_text()), t.page.url
            continue
        section = t.page.locator(f"tbody#{frag}")
        title = t.page.locator(f"tbody#{frag} tr.mh strong").bounding_box()
        assert section.is_visible() and title and 0 <= title["y"] < PHONE["height"], t.page.url
        table = t.page.locator("table.mg")
        before = table.locator("thead th").get_by_text("Before", exact=True)
        assert not before.is_visible()
        t.page.locator("details.show-all summary").first.click()
        assert before.is_visible()
    assert not t.problems, t.problems


def test_leaderboard_starts_on_the_first_screen(sites, tab):
    site = _site(sites, "demo")
    t = tab("phone")
    for league in site.leagues():
        assert t.open(f"{site.url}leagues/{league}/").status == 200
        _top(t)
        assert _on_first_screen(t, "table.board tbody tr"), f"{league}: the board's first row is below the first screen"
        # The league's explanation comes after the board.
        about = t.page.locator("#about-h").bounding_box()
        board = t.page.locator("table.board").first.bounding_box()
        assert about["y"] > board["y"] + board["height"]
        assert t.page.evaluate(WIDE_TABLES) == [], league
    assert not t.problems, t.problems


def test_no_word_is_broken_and_no_table_scrolls(sites, tab):
    site = _site(sites, "demo")
    t = tab("phone")
    pages = [""] + [p for league in site.leagues() for p in (
        f"leagues/{league}/", _busiest(site, league), _last_match(site, league), f"leagues/{league}/results/")]
    for path in pages:
        assert t.open(site.url + path).status == 200
        assert t.page.evaluate(BROKEN, ONE_LINE) == [], f"/{path}: broken over lines"
        assert t.page.evaluate(WIDE_TABLES) == [], f"/{path}: a table scrolls sideways"
    assert not t.problems, t.problems


def test_chart_boxes_are_never_empty(sites, tab):
    site = _site(sites, "demo")
    player = _busiest(site, "ranked-battle")
    for path in (player, "leagues/formula-1/", "spec/elo/"):
        # Without scripts (or before the bundle arrives): the preview drawn at build time.
        still = tab("phone", java_script_enabled=False)
        assert still.open(site.url + path).status == 200
        for box in still.page.locator("div.vega").all():
            size = box.bounding_box()
            assert size and size["height"] >= 200, f"/{path}: chart box {size}"
            preview = box.locator("svg.preview")
            assert preview.count() == 1 and preview.locator("path, rect").count() >= 1, f"/{path}: empty box"
        # With scripts: Vega's chart replaces it; labels of 11 px at least.
        t = tab("phone")
        assert t.open(site.url + path).status == 200
        sizes = t.page.evaluate("""() => [...document.querySelectorAll('div.vega.drawn .vega-live svg text')]
            .map(e => parseFloat(getComputedStyle(e).fontSize))""")
        assert sizes and min(sizes) >= 11, f"/{path}: chart text of {min(sizes)} px"
        assert t.page.locator("div.vega svg.preview").count() == 0
        assert not t.problems, t.problems
    # The date axis names the year on its first tick.
    t = tab("phone")
    t.open(site.url + player)
    labels = t.page.evaluate("""() => {
        const x = [...document.querySelectorAll('div.vega .role-axis')]
            .find(g => (g.getAttribute('aria-label') || '').startsWith('X-axis'));
        return x ? [...x.querySelectorAll('.role-axis-label text')].map(e => e.textContent) : [];
    }""")
    assert labels and re.search(r"\d{4}", labels[0]), labels


def test_matches_are_named_for_people(sites, tab):
    site = _site(sites, "demo")
    t = tab("phone")
    t.open(site.url + _last_match(site, "formula-1"))
    frag = urlsplit(t.page.url).fragment
    heading = t.page.locator(f"tbody#{frag} tr.mh strong").inner_text()
    assert re.fullmatch(r".+ wins .+ Grand Prix \d{4}", heading), heading
    t.open(site.url + _last_match(site, "lunaro-duels"))
    frag = urlsplit(t.page.url).fragment
    assert re.fullmatch(r".+ \d+\u2013\d+ .+", t.page.locator(f"tbody#{frag} tr.mh strong").inner_text())
    # The id stays: in the address (its anchor) and on the page.
    assert frag == "m-" + t.page.locator(f"tbody#{frag} tr.mh code").inner_text()
    t.open(site.url)
    titles = t.page.locator("#recent-h ~ .table-wrap tbody td:nth-of-type(2)").all_inner_texts()
    assert titles and all(re.search(r"\d\u2013\d| wins | beats | draw| · ", x) for x in titles), titles
    assert not t.problems, t.problems


def test_league_page_layout(sites, browser):
    site = _site(sites, "demo")
    laptop = Tab(browser, LAPTOP)
    phone = Tab(browser, PHONE)
    try:
        for t in (laptop, phone):
            t.open(f"{site.url}leagues/battle-royale/")
            tops = [t.page.locator(f"#{h}").bounding_box()["y"] for h in ("busy-h", "gained-h", "lost-h")]
            if t is laptop:
                assert max(tops) - min(tops) < 2, f"side by side on a laptop: {tops}"
            else:
                assert tops == sorted(tops) and tops[1] - tops[0] > 100, f"stacked on a phone: {tops}"
        # The arena league's formula is MathML, as on the spec pages.
        laptop.open(f"{site.url}leagues/arena/")
        assert laptop.page.locator("section.about math").count() >= 2
        # At 1366 px the search box sits on the brand's row and the leagues' strip shows them all.
        brand = laptop.page.locator(".brand").bounding_box()
        search = laptop.page.locator(".site-search input").bounding_box()
        assert abs((brand["y"] + brand["height"] / 2) - (search["y"] + search["height"] / 2)) < 8, (brand, search)
        assert laptop.page.evaluate("() => { const u = document.querySelector('.bar ul'); "
                                    "return u.scrollWidth <= u.clientWidth + 1; }"), "the leagues' strip is cut"
        assert not laptop.problems and not phone.problems, laptop.problems + phone.problems
    finally:
        laptop.close()
        phone.close()
