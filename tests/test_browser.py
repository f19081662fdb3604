"""End to end in headless Chromium: the built site as a visitor's browser shows it.

The fixture site (``tests/fixtures/small/``) and, when the repository has one,
its own demo site (``matches/`` at the repository root) are built into a
temporary folder and served by ``http.server`` on 127.0.0.1. Debian's Chromium
(``/usr/bin/chromium``; ``make test`` installs it, nothing is downloaded) is
driven through Playwright's sync API and launched once for the module.

Checked on every page visited, at a phone (390x844) and a desktop (1280x900)
viewport: status 200, one non-empty h1, every chart drawn, no console errors,
no page errors, no failed or off-site request (only 127.0.0.1), and no
horizontal overflow of the page. Besides: one leaderboard row per player, a
player name holding markup shown literally (also in the chart's tooltip), and
chart times in UTC whatever the viewer's time zone. And what a player sees first on a
phone (the last part of this module, on the same build of the demo, which takes a while).

Run only these with ``pytest -m browser``; leave them out with ``-m "not browser"``.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from served import serving

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "small"
HAS_DEMO = (REPO / "matches").is_dir()
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
TIMEOUT_MS = 20_000
EVE = '<i>Eve & "Co"</i>'

# The fixture's pages, chosen: the player with markup in the name, the alias, the non-Latin name.
FIXTURE_PAGES = [
    "", "leagues/duel/", "leagues/duel/results/", "leagues/duel/players/i-eve-co-i/",
    "leagues/duel/players/bo/", "leagues/duel/matches/round-1/", "leagues/ladder/",
    "leagues/ladder/players/omega/", "leagues/ladder/matches/2024/april/",
    "leagues/royale/", "leagues/royale/matches/season-1/", "leagues/royale/players/i-eve-co-i/",
    "leagues/wvw/", "leagues/wvw/matches/2024/", "leagues/wvw/players/ashford/",
    "leagues/arena/", "leagues/arena/matches/games/", "leagues/arena/players/kaito/",
    "spec/lunaro/", "spec/elo/", "spec/placement/", "spec/glicko2/", "spec/arena/", "about/", "404.html",
]


def _demo_pages(out: Path) -> list[str]:
    """Home, and per league its leaderboard, results list, one player and one match; every content page."""
    pages = [""]
    for league in sorted(p for p in (out / "leagues").iterdir() if p.is_dir()):
        base = f"leagues/{league.name}/"
        players = sorted(p.name for p in (league / "players").iterdir() if p.is_dir())
        # The page of the league's last match file (the pages of match files are index.html files).
        matches = sorted(p.parent.relative_to(league / "matches").as_posix()
                         for p in (league / "matches").rglob("index.html") if p.parent != league / "matches")
        pages += [base, base + "results/", f"{base}players/{players[0]}/", f"{base}matches/{matches[-1]}/"]
    for index in sorted(out.glob("*/index.html")) + sorted(out.glob("*/*/index.html")):
        rel = index.parent.relative_to(out).as_posix() + "/"
        if not rel.startswith(("leagues/", "assets/", "data/")):
            pages.append(rel)
    return pages + ["404.html"]


# --- the sites, the server and the browser ---------------------------------------------

@dataclass
class Site:
    name: str
    folder: Path          # the built site
    url: str              # where it is served, ending in "/"
    pages: list[str]

    def leagues(self) -> list[str]:
        return sorted(p.name for p in (self.folder / "data").iterdir() if p.is_dir())

    def standings(self, league: str) -> list[dict[str, str]]:
        text = (self.folder / "data" / league / "standings.csv").read_text(encoding="utf-8")
        return list(csv.DictReader(io.StringIO(text, newline="")))


@pytest.fixture(scope="module")
def sites(tmp_path_factory, request):
    """Build the fixture in this process, serve its parent folder on 127.0.0.1 in a thread; the
    demo is conftest's ``demo_site``, built and served once a session the same way."""
    from sitegen.commands.build import build

    base = tmp_path_factory.mktemp("served")
    with serving(base) as root:
        # Each site knows the address it is served from, as a project site does: the 404
        # page, served at any depth, links from that path instead of relatively.
        build(FIXTURE, base / "small", base_url=root + "small/")
        served = {"small": Site("small", base / "small", root + "small/", FIXTURE_PAGES)}
        if HAS_DEMO:
            folder, url = request.getfixturevalue("demo_site")
            served["demo"] = Site("demo", folder, url, _demo_pages(folder))
        yield served



def _site(sites, name: str) -> Site:
    if name not in sites:
        pytest.skip("the repository has no demo matches/ folder")
    return sites[name]


class Tab:
    """One page in a fresh context, recording what went wrong while it was used."""

    def __init__(self, browser, viewport: dict[str, int], **context_options) -> None:
        self.context = browser.new_context(viewport=viewport, service_workers="block", **context_options)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.problems: list[str] = []
        # Nothing may leave 127.0.0.1: record and refuse any other host.
        self.context.route(lambda url: _offsite(url), self._refuse)
        self.page = self.context.new_page()
        self.page.on("console", lambda msg: msg.type == "error" and self.problems.append(
            f"console error: {msg.text}"))
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", lambda resp: resp.status >= 400 and self.problems.append(
            f"HTTP {resp.status}: {resp.url}"))

    def _failed(self, request) -> None:
        # ERR_ABORTED is Chromium dropping a request because the tab moved on
        # (a favicon still loading when the next page opens); a missing file
        # shows up as an HTTP status in the response handler instead.
        if request.failure and "ERR_ABORTED" in request.failure:
            return
        self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _refuse(self, route) -> None:
        self.problems.append(f"request to another host: {route.request.url}")
        route.abort()

    def open(self, url: str, drawn: bool = True):
        """Load ``url`` and, with ``drawn``, wait until every chart on it is drawn; returns the main
        response. A tab without scripts passes ``drawn=False``: nothing would ever draw them."""
        response = self.page.goto(url, wait_until="load")
        charts = self.page.locator("div.vega").count() if drawn else 0
        if charts:
            # Vega is fetched once a chart comes near the screen: bring each one into view.
            for i in range(charts):
                self.page.locator("div.vega").nth(i).scroll_into_view_if_needed()
            try:
                self.page.wait_for_function(
                    "n => document.querySelectorAll('div.vega.drawn svg').length === n", arg=charts)
            except sync_api.TimeoutError:
                text = self.page.locator("div.vega").first.inner_text()
                self.problems.append(f"chart not drawn within {TIMEOUT_MS} ms: {text!r}")
        return response

    def close(self) -> None:
        self.context.close()


def _offsite(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme not in ("data", "blob", "about") and parts.hostname != "127.0.0.1"


@pytest.fixture
def tab(browser):
    tabs: list[Tab] = []

    def _open(viewport: str = "desktop", **options) -> Tab:
        t = Tab(browser, VIEWPORTS[viewport], **options)
        tabs.append(t)
        return t

    yield _open
    for t in tabs:
        t.close()


# --- the tests --------------------------------------------------------------------------

OVERFLOW = "() => [document.documentElement.scrollWidth, window.innerWidth]"


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("site_name", ["small", "demo"])
def test_pages_render_cleanly(sites, tab, request, site_name, viewport):
    site = _site(sites, site_name)
    if (site_name, viewport) == ("demo", "phone"):
        visit = request.getfixturevalue("phone_visit")      # the pages the phone tests share
    else:
        t = tab(viewport)
        visit = functools.partial(_visit, t, site)
    failures = []
    for path in site.pages:
        v = visit(path)
        found = list(v.problems)
        if v.status != 200:
            found.append(f"status {v.status}")
        if v.mains != 1:
            found.append(f"not a page of the site (title {v.title!r})")
        if v.h1s != 1:
            found.append(f"{v.h1s} h1 elements, expected 1")
        elif not v.h1:
            found.append("the h1 is empty")
        scroll_width, inner_width = v.width
        if scroll_width > inner_width + 1:
            found.append(f"horizontal overflow: the page is {scroll_width} px wide in a {inner_width} px window")
        failures += [f"/{path}: {p}" for p in found]
    assert not failures, f"{site.name} site at {viewport} size:\n" + "\n".join(f"  {f}" for f in failures)


@pytest.mark.parametrize("site_name", ["small", "demo"])
def test_leaderboard_has_one_row_per_player(sites, tab, site_name):
    site = _site(sites, site_name)
    t = tab()
    for league in site.leagues():
        standings = site.standings(league)
        assert standings, f"{league}: no standings"
        response = t.open(f"{site.url}leagues/{league}/")
        assert response.status == 200
        rows = t.page.locator("table.board tbody tr")
        assert rows.count() == len(standings), f"{league}: {rows.count()} rows for {len(standings)} players"
        # Active players first, ranked among themselves (1, 2, 3, ... ties shared) with the rank of
        # standings.csv beside (All-time); inactive ones below with the rank of standings.csv.
        active = t.page.locator("table.board[aria-labelledby=board-h] tbody tr")
        inactive = t.page.locator("table.board[aria-labelledby=inactive-h] tbody tr")
        names = (active.locator("th[scope=row] a").all_text_contents()     # inactive ones sit in a closed <details>
                 + inactive.locator("th[scope=row] a").all_text_contents())
        ranks = ([r.strip() for r in active.locator("td.at").all_text_contents()]
                 + [r.strip() for r in inactive.locator("td:first-child").all_text_contents()])
        shown = sorted(zip(names, ranks))
        assert shown == sorted((r["player"], r["rank"]) for r in standings), \
            f"{league}: the leaderboard's players and all-time ranks are not those of standings.csv"
        by_name = {r["player"]: float(r["rating"]) for r in standings}
        board = [int(r) for r in active.locator("td:first-child").all_text_contents()]
        ratings = [by_name[n] for n in active.locator("th[scope=row] a").all_text_contents()]
        assert board == [1 + sum(1 for x in ratings if x > r) for r in ratings], \
            f"{league}: the board's ranks are not 1 + the active players rated higher"
        players = [p for p in (site.folder / "leagues" / league / "players").iterdir() if p.is_dir()]
        assert len(players) == len(standings), f"{league}: {len(players)} player pages"
    assert not t.problems, t.problems


INJECTED = """() => [...document.querySelectorAll('i, b, img, script:not([type="application/json"])')]
    .filter(e => (e.textContent || '').includes('Eve') || e.src && e.src.includes('Eve')).length"""


@pytest.mark.parametrize("path", ["", "leagues/duel/", "leagues/duel/players/i-eve-co-i/",
                                  "leagues/royale/", "leagues/royale/players/i-eve-co-i/",
                                  "leagues/royale/matches/season-1/",
                                  "leagues/duel/players/bo/", "leagues/duel/matches/round-1/"])
def test_name_with_markup_is_shown_as_text(sites, tab, path):
    site = sites["small"]
    t = tab()
    assert t.open(site.url + path).status == 200
    shown = t.page.get_by_text(EVE, exact=True)
    assert shown.count() >= 1, f"/{path}: the name {EVE!r} is not shown literally"
    assert t.page.evaluate(INJECTED) == 0, f"/{path}: the name's markup became an element"
    if path.endswith("i-eve-co-i/"):
        assert t.page.locator("h1").inner_text() == EVE
        assert EVE in t.page.title()
    assert not t.problems, t.problems


@pytest.mark.parametrize("system", ["lunaro", "elo", "placement", "glicko2", "arena"])
def test_spec_page_draws_its_curve(sites, tab, system):
    """Each spec page draws its system's characteristic curve: one line per series in its table."""
    site = sites["small"]
    t = tab()
    assert t.open(f"{site.url}spec/{system}/").status == 200
    chart = t.page.locator("figure.chart div.vega")
    assert chart.count() == 1, f"spec/{system}/: no chart"
    assert "drawn" in (chart.get_attribute("class") or "").split(), f"spec/{system}/: chart not drawn"
    series = t.page.locator("details.curve-values thead th").count() - 1
    lines = chart.locator("svg g.mark-line path").count()
    assert series >= 1 and lines == series, f"spec/{system}/: {lines} lines for {series} series"
    assert t.page.locator("math").count() > 0, f"spec/{system}/: no MathML formulas"
    assert not t.problems, t.problems


def test_chart_is_drawn_on_player_pages(sites, tab):
    """One point per rating change: a period of several matches (Ashford, 2024-W12) is one point."""
    site = sites["small"]
    t = tab()
    for path in ("leagues/duel/players/i-eve-co-i/", "leagues/ladder/players/ana/",
                 "leagues/royale/players/zoe/", "leagues/wvw/players/ashford/", "leagues/arena/players/ana/"):
        assert t.open(site.url + path).status == 200
        chart = t.page.locator("div.vega")
        assert chart.count() == 1
        assert "drawn" in (chart.get_attribute("class") or "").split(), f"/{path}: class 'drawn' not set"
        assert chart.locator("svg").count() == 1, f"/{path}: no svg in div.vega"
        rows = t.page.locator("#games-rows tr")
        # A game rated with a later one of its period says "in <period>" where the change would be.
        rated = t.page.evaluate("""() => [...document.querySelectorAll('#games-rows tr')]
            .filter(r => !r.cells[4].textContent.startsWith('in ')).length""")
        points = chart.locator("svg g.mark-symbol path").count()
        assert rated > 0 and points == rated, f"/{path}: {points} points for {rated} rated games"
        if path.endswith("ashford/"):
            assert rows.count() == 3 and rated == 2, "Ashford's two matches of 2024-W12 are one change"
    assert not t.problems, t.problems


def test_chart_tooltip_shows_names_as_text_and_times_in_utc(sites, tab):
    """Bo's second game: final.2024, 2024-03-03T10:00+02:00, against the player with markup in the name.
    Viewed from UTC+05:30, the tooltip must still say 08:00 (UTC, as the page's tables do)."""
    site = sites["small"]
    t = tab(timezone_id="Asia/Kolkata")
    assert t.open(site.url + "leagues/duel/players/bo/").status == 200
    point = t.page.locator("div.vega svg g.mark-symbol path").nth(1)
    point.hover(force=True)
    tooltip = t.page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible")
    text = tooltip.inner_text()
    assert "final.2024" in text, text
    assert EVE in text, f"the opponent's name is not shown literally in the tooltip: {text!r}"
    assert tooltip.locator("i").count() == 0, "the name's markup became an element in the tooltip"
    assert "2024-03-03 08:00" in text, f"the tooltip's time is not UTC: {text!r}"
    assert not t.problems, t.problems


# --- what a player sees first, at 390 x 844 (and a 1366 px laptop) -------------------------
#
# On the demo site (this repository's matches/): the latest game's result and change
# on the first screen of a busy player's page, the games list without sideways
# scrolling, the leaderboard's first row on the first screen, no name, date or id
# broken inside a word, chart boxes that are never empty (a preview drawn at build
# time, then Vega's chart with labels of 11 px or more and a year on the first date
# tick), match titles written for people, and the league page's layout.

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


@dataclass
class Visit:
    """What a page showed once opened (``Tab.open``: its charts drawn): its status, the problems
    the tab met while it loaded and was read, its main elements and h1s, its scroll and inner
    width; with ``phone``, the words broken over lines and the tables that scroll sideways, and
    on a leaderboard, scrolled to the top, whether the first row and the about section are where
    a phone's first screen needs them (None elsewhere)."""
    status: int | None
    problems: list[str]
    mains: int
    title: str
    h1s: int
    h1: str
    width: tuple[int, int]
    broken: list[str] | None = None
    wide: list[str] | None = None
    board_first: bool | None = None
    about_below: bool | None = None


def _visit(t: Tab, site: Site, path: str, phone: bool = False) -> Visit:
    start = len(t.problems)
    if urlsplit(t.page.url)._replace(fragment="") == urlsplit(site.url + path)._replace(fragment=""):
        t.page.goto("about:blank")      # else going to an anchor of this page would not load it
    response = t.open(site.url + path)
    mains = t.page.locator("main#main").count()
    headings = t.page.locator("h1")
    h1s = headings.count()
    v = Visit(response.status if response else None, [], mains, t.page.title() if mains != 1 else "",
              h1s, headings.inner_text().strip() if h1s == 1 else "", tuple(t.page.evaluate(OVERFLOW)))
    if phone:
        v.broken, v.wide = t.page.evaluate(BROKEN, ONE_LINE), t.page.evaluate(WIDE_TABLES)
        if re.fullmatch(r"leagues/[^/]+/", path):
            _top(t)
            v.board_first = _on_first_screen(t, "table.board tbody tr")
            about = t.page.locator("#about-h").bounding_box()
            board = t.page.locator("table.board").first.bounding_box()
            v.about_below = about["y"] > board["y"] + board["height"]
    v.problems = t.problems[start:]
    return v


@pytest.fixture(scope="module")
def phone_visit(sites, browser):
    """``phone_visit(path)``: the demo's page at ``path`` opened at a phone's size once a module,
    in one tab, and read (``_visit``) for every test that only reads it there: the pages of
    test_pages_render_cleanly, the leaderboards and the pages of no_word_is_broken."""
    site = _site(sites, "demo")
    t = Tab(browser, PHONE)
    seen: dict[str, Visit] = {}

    def visit(path: str) -> Visit:
        if path not in seen:
            seen[path] = _visit(t, site, path, phone=True)
        return seen[path]

    yield visit
    t.close()


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


def test_leaderboard_starts_on_the_first_screen(sites, phone_visit):
    site = _site(sites, "demo")
    for league in site.leagues():
        v = phone_visit(f"leagues/{league}/")
        assert v.status == 200
        assert v.board_first, f"{league}: the board's first row is below the first screen"
        assert v.about_below        # the league's explanation comes after the board
        assert v.wide == [], league
        assert not v.problems, v.problems


def test_no_word_is_broken_and_no_table_scrolls(sites, phone_visit):
    site = _site(sites, "demo")
    pages = [""] + [p for league in site.leagues() for p in (
        f"leagues/{league}/", _busiest(site, league), _last_match(site, league), f"leagues/{league}/results/")]
    for path in pages:
        v = phone_visit(path)
        assert v.status == 200
        assert v.broken == [], f"/{path}: broken over lines"
        assert v.wide == [], f"/{path}: a table scrolls sideways"
        assert not v.problems, v.problems


def test_chart_boxes_are_never_empty(sites, tab):
    site = _site(sites, "demo")
    player = _busiest(site, "ranked-battle")
    drawn = {}
    for path in (player, "leagues/formula-1/", "spec/elo/"):
        # Without scripts (or before the bundle arrives): the preview drawn at build time.
        still = tab("phone", java_script_enabled=False)
        assert still.open(site.url + path, drawn=False).status == 200
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
        drawn[path] = t
    # The date axis names the year on its first tick (the player's page, drawn above).
    labels = drawn[player].page.evaluate("""() => {
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
