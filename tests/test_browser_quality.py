"""What a real browser measures: accessibility, a visitor's path through the site, hostile names.

The fixture site (``tests/fixtures/small/``) and the hostile-names site
(``tests/fixtures/hostile/``) are built into a temporary folder and served by
``http.server`` on 127.0.0.1; Debian's Chromium is driven through Playwright.

* axe-core (bundled by the axe-playwright-python package, injected into the
  page: nothing is downloaded) finds no violation on the home page, a
  leaderboard, the results list, a player page, a match page, a spec page, the
  search page and the 404 page, in the light and the dark colour scheme, at
  390x844 and 1280x900.
* A visitor clicks real links from the home page to a league, a player, a
  match and the spec page: no console error, no page error, no request to any
  host but 127.0.0.1 and no horizontal overflow at 390 px on the way.
* On the hostile site no name runs: no dialog opens, ``window.__pwned`` stays
  undefined, no element comes from a name, every player link, heading and
  chart tooltip shows the exact name, player links are isolated for
  right-to-left names, and no page overflows a phone's width.
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import axe_run
from served import serving

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytest.importorskip("axe_playwright_python.sync_playwright",
                    reason="the axe-playwright-python package is not installed")

from sitegen.model.views import player_slugs  # noqa: E402 - after the skips

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
FIXTURES = {"small": REPO / "tests" / "fixtures" / "small", "hostile": REPO / "tests" / "fixtures" / "hostile"}
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
TIMEOUT_MS = 20_000
LONG_NAME = "LlanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogochJonesx"

# The pages axe checks; those in OPTIONAL are checked where the build wrote them.
AXE_PAGES = {
    "small": ["", "leagues/duel/", "leagues/duel/results/", "leagues/duel/players/i-eve-co-i/",
              "leagues/duel/players/i-eve-co-i/opponents/", "leagues/duel/matches/round-1/",
              "leagues/royale/", "leagues/wvw/players/ashford/", "leagues/arena/matches/games/",
              "spec/lunaro/", "about/", "search/", "404.html"],
    "hostile": ["", "leagues/duel/", "leagues/lobby/", "leagues/duel/results/", "leagues/lobby/results/",
                "leagues/duel/players/script-alert-1-script/", f"leagues/lobby/players/{LONG_NAME.lower()}/",
                f"leagues/lobby/players/{LONG_NAME.lower()}/opponents/", "leagues/duel/players/mhmd-ly/",
                "leagues/duel/matches/2024/may/", "leagues/lobby/matches/season-1/", "spec/elo/",
                "search/", "404.html"],
}
OPTIONAL = ("search/", "404.html", "/opponents/")


# --- the sites, the server and the browser ---------------------------------------------

@dataclass
class Site:
    name: str
    folder: Path
    url: str

    def exists(self, path: str) -> bool:
        target = self.folder / unquote(path)
        return (target / "index.html").is_file() if path.endswith("/") or not path else target.is_file()

    def standings(self, league: str) -> list[dict[str, str]]:
        text = (self.folder / "data" / league / "standings.csv").read_text(encoding="utf-8")
        return list(csv.DictReader(io.StringIO(text, newline="")))

    def changes(self, league: str) -> list[dict[str, str]]:
        text = (self.folder / "data" / league / "changes.csv").read_text(encoding="utf-8")
        return list(csv.DictReader(io.StringIO(text, newline="")))

    def players(self, league: str) -> dict[str, str]:
        """Name -> the player's page, as a site path."""
        names = [r["player"] for r in self.standings(league)]
        return {name: f"leagues/{league}/players/{slug}/" for name, slug in player_slugs(names).items()}


@pytest.fixture(scope="module")
def sites(tmp_path_factory, small_site):
    """Each site built and served at the root of its own port: the 404 page links from "/",
    as a host that serves it for every missing path needs. The small one is conftest's
    ``small_site``, built once a session (the leaderboard's tests read it too)."""
    from sitegen.commands.build import build

    base = tmp_path_factory.mktemp("quality")
    build(FIXTURES["hostile"], base / "hostile")
    with serving(base / "hostile", name="quality-hostile") as url:
        yield {"small": Site("small", *small_site), "hostile": Site("hostile", base / "hostile", url)}



def _offsite(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme not in ("data", "blob", "about") and parts.hostname != "127.0.0.1"


class Tab:
    """One page in a fresh context, recording errors, off-site requests and dialogs."""

    def __init__(self, browser, viewport: str, **options) -> None:
        self.context = browser.new_context(viewport=VIEWPORTS[viewport], service_workers="block", **options)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.context.route(_offsite, self._refuse)
        self.page = self.context.new_page()
        self.page.on("console", lambda msg: msg.type == "error" and self.problems.append(
            f"console error: {msg.text}"))
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("response", lambda resp: resp.status >= 400 and self.problems.append(
            f"HTTP {resp.status}: {resp.url}"))
        self.page.on("dialog", self._dialog)
        # Requests sent and not yet answered in full: settle() waits for none to be left.
        self.pending: set = set()
        self.page.on("request", lambda request: self.pending.add(request))
        self.page.on("requestfinished", lambda request: self.pending.discard(request))
        self.page.on("requestfailed", lambda request: self.pending.discard(request))

    def _refuse(self, route) -> None:
        self.problems.append(f"request to another host: {route.request.url}")
        route.abort()

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message!r}")
        dialog.dismiss()

    def settle(self, idle: bool = False) -> None:
        """Wait until every chart on the page is drawn (Vega loads after the load event, once a
        chart comes near the screen, so each is scrolled into view) and no request the page
        sent is still unanswered; with ``idle``, also until the network has been quiet for
        half a second (the search page loads its index by script)."""
        charts = self.page.locator("div.vega").count()
        if charts:
            for i in range(charts):
                self.page.locator("div.vega").nth(i).scroll_into_view_if_needed()
            try:
                self.page.wait_for_function(
                    "n => document.querySelectorAll('div.vega.drawn svg').length === n", arg=charts)
            except sync_api.TimeoutError:
                self.problems.append(f"chart not drawn within {TIMEOUT_MS} ms")
        waited = 0
        while self.pending and waited < TIMEOUT_MS:
            self.page.wait_for_timeout(10)      # lets Playwright deliver the requests' events
            waited += 10
        if self.pending:
            self.problems.append(f"requests unanswered after {TIMEOUT_MS} ms: "
                                 + ", ".join(sorted(r.url for r in self.pending)[:3]))
        if idle:
            self.page.wait_for_load_state("networkidle")

    def open(self, url: str, idle: bool = False):
        response = self.page.goto(url, wait_until="load")
        self.settle(idle)
        return response

    def overflow(self) -> str | None:
        width, inner = self.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        if width > inner + 1:
            return f"horizontal overflow: the page is {width} px wide in a {inner} px window ({self.wide()})"
        return None

    def wide(self) -> str:
        """The innermost elements (or text) reaching past the window outside any scroller."""
        return self.page.evaluate("""() => {
            const w = window.innerWidth, out = [];
            const scrolls = el => getComputedStyle(el).overflowX !== 'visible';
            const inScroller = el => {
                for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
                    if (scrolls(p)) return true;
                return false;
            };
            for (const el of document.querySelectorAll('body *')) {
                const r = el.getBoundingClientRect();
                if (Math.max(r.right, r.left + el.scrollWidth) <= w + 1 || scrolls(el) || inScroller(el)) continue;
                if ([...el.children].some(c => c.getBoundingClientRect().right > w + 1)) continue;
                out.push(el.tagName.toLowerCase()
                         + (el.className ? '.' + String(el.className).trim().split(/ +/).join('.') : '')
                         + ' ' + JSON.stringify((el.textContent || '').trim().slice(0, 50)));
                if (out.length >= 3) break;
            }
            return out.join('; ') || 'no single element';
        }""")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser):
    tabs: list[Tab] = []

    def _open(viewport: str = "desktop", **options) -> Tab:
        t = Tab(browser, viewport, **options)
        tabs.append(t)
        return t

    yield _open
    for t in tabs:
        t.close()


# --- axe-core -------------------------------------------------------------------------------

# axe's defaults, plus target-size (WCAG 2.2 AA, off by default in axe-core, on in Lighthouse).
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}


def _violations(page) -> list[str]:
    """axe-core's violations on the page, one readable line each: rule, impact, help, where, why."""
    lines = []
    for v in axe_run.violations(page, AXE_OPTIONS):
        nodes = v["nodes"]
        where = "; ".join(" ".join(map(str, n["target"])) for n in nodes[:3])
        why = next((c["message"] for c in nodes[0].get("any", []) + nodes[0].get("all", [])
                    + nodes[0].get("none", []) if c.get("message")), "") if nodes else ""
        more = f" (+{len(nodes) - 3} more)" if len(nodes) > 3 else ""
        lines.append(f"{v['id']} [{v['impact']}] {v['help']}: {where}{more}. {why}")
    return lines


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("site_name", sorted(FIXTURES))
def test_axe_finds_no_violation(sites, tab, site_name, scheme, viewport):
    site = sites[site_name]
    t = tab(viewport, color_scheme=scheme)
    failures = []
    checked = 0
    for path in AXE_PAGES[site_name]:
        if path.endswith(OPTIONAL) and not site.exists(path):
            continue
        assert site.exists(path), f"/{path} is not in the {site_name} site"
        t.problems.clear()
        # Only the search page loads by script after the load event (its index, when asked).
        t.open(site.url + path, idle=path == "search/")
        failures += [f"/{path}: {line}" for line in _violations(t.page) + t.problems]
        checked += 1
    assert checked >= 9
    assert not failures, (f"axe-core on the {site_name} site, {scheme} scheme, {viewport}:\n"
                          + "\n".join(f"  {f}" for f in failures))


def test_axe_run_gives_the_violations_the_package_gives(browser):
    """axe_run.violations is the package's Axe.run, its violations alone (here two rules'),
    with the options above and with the package's own."""
    from axe_playwright_python.sync_playwright import Axe

    page = browser.new_page()
    try:
        page.set_content('<html lang="en"><title>t</title><main><h1>t</h1><img src="data:,">'
                         '<p style="color:#777;background:#888">faint</p></main></html>')
        for options in (AXE_OPTIONS, None):
            ours = axe_run.violations(page, options)
            theirs = (Axe().run(page, options=options) if options else Axe().run(page)).response["violations"]
            assert ours == theirs and {v["id"] for v in ours} == {"image-alt", "color-contrast"}
    finally:
        page.close()


# --- a visitor's path -----------------------------------------------------------------------

def _follow(t: Tab, selector: str, expect: str) -> str:
    """Click the first link matching ``selector`` and wait for the page it opens; returns its path."""
    link = t.page.locator(selector).first
    assert link.count() == 1, f"no link {selector!r} on {t.page.url}"
    with t.page.expect_navigation(wait_until="load"):
        link.click()
    t.settle()
    path = urlsplit(t.page.url).path
    assert re.search(expect, path), f"clicking {selector!r} led to {path}, expected {expect!r}"
    return path


# (site, league link on the home page, player link on the leaderboard)
ROUTES = [
    ("small", "leagues/duel/", "players/i-eve-co-i/"),
    ("small", "leagues/royale/", "players/"),
    ("hostile", "leagues/lobby/", f"players/{LONG_NAME.lower()}/"),
    ("hostile", "leagues/duel/", "players/script-script-window-pwned-1-script/"),
]


@pytest.mark.parametrize("site_name,league,player", ROUTES)
def test_click_through_home_league_player_match_spec(sites, tab, site_name, league, player):
    site = sites[site_name]
    t = tab("phone")
    t.open(site.url)
    visited = [urlsplit(t.page.url).path]
    failures = []

    def check() -> None:
        here = urlsplit(t.page.url).path
        found = list(t.problems)
        if (o := t.overflow()) is not None:
            found.append(o)
        failures.extend(f"{here}: {p}" for p in found)
        t.problems.clear()

    check()
    visited.append(_follow(t, f'main a[href$="{league}"]', re.escape(league) + "$"))
    check()
    visited.append(_follow(t, f'main a[href*="{player}"]', r"/players/[^/]+/$"))
    check()
    visited.append(_follow(t, 'main a[href*="/matches/"]:not([href$="/matches/"])', r"/matches/.+/$"))
    check()
    visited.append(_follow(t, 'main a[href*="spec/"]', r"/spec/[a-z0-9]+/$"))
    check()
    assert not t.dialogs, t.dialogs
    assert not failures, "on the way " + " -> ".join(visited) + ":\n" + "\n".join(f"  {f}" for f in failures)


# --- hostile names --------------------------------------------------------------------------

# Anything a name could have turned into: an element, an event handler, a script of its own.
INJECTED = """() => {
    const found = [];
    for (const el of document.querySelectorAll('img[src="x"], [onerror], [onmouseover], [onload]'))
        found.push(el.outerHTML.slice(0, 80));
    for (const el of document.querySelectorAll('main b, main i, main em:not(.prose em), main img, main textarea'))
        found.push(el.outerHTML.slice(0, 80));
    for (const s of document.querySelectorAll('script:not([src]):not([type="application/json"])'))
        if (/alert|__pwned/.test(s.textContent)) found.push(s.outerHTML.slice(0, 80));
    if (typeof window.__pwned !== 'undefined') found.push('window.__pwned is ' + window.__pwned);
    return found;
}"""
# Every link in main to a player page: the page it opens and the text it shows.
# Isolated for the bidi algorithm: else an RTL name pulls a rating that follows it to its left.
PLAYER_LINKS = """() => [...document.querySelectorAll('main a[href*="players/"]')]
    .map(a => [new URL(a.href).pathname, a.textContent.trim(),
               a.hasAttribute('dir') || !!a.closest('bdi') || ['isolate', 'plaintext', 'isolate-override']
                   .includes(getComputedStyle(a).unicodeBidi)])"""


def _hostile_pages(site: Site) -> dict[str, str]:
    """Site path -> name, for every player page of both leagues."""
    return {path: name for league in ("duel", "lobby") for name, path in site.players(league).items()}


def test_hostile_names_never_run_and_show_literally(sites, tab):
    site = sites["hostile"]
    names = _hostile_pages(site)
    base = urlsplit(site.url).path
    t = tab("phone")    # where a 64-character name is most likely to widen the page
    failures = []
    checked_links = 0
    pages = ["", "leagues/duel/", "leagues/lobby/", "leagues/duel/results/", "leagues/lobby/results/"]
    pages += sorted(names)
    pages += sorted(f"leagues/{lg}/matches/{p.parent.relative_to(site.folder / 'leagues' / lg / 'matches').as_posix()}/"
                    for lg in ("duel", "lobby") for p in (site.folder / "leagues" / lg / "matches").rglob("index.html")
                    if p.parent.name != "matches")
    for path in pages:
        t.problems.clear()
        response = t.open(site.url + path)
        found = list(t.problems)
        if response is None or response.status != 200:
            found.append(f"status {response.status if response else None}")
        found += [f"injected: {x}" for x in t.page.evaluate(INJECTED)]
        if (o := t.overflow()) is not None:
            found.append(o)
        if path in names:
            h1 = t.page.locator("h1").first.text_content()
            if h1 != names[path]:
                found.append(f"h1 shows {h1!r}, not {names[path]!r}")
        for href, text, isolated in t.page.evaluate(PLAYER_LINKS):
            target = unquote(href).removeprefix(base)
            if target in names:
                checked_links += 1
                if text != names[target]:
                    found.append(f"the link to {target} shows {text!r}, not {names[target]!r}")
                if not isolated:
                    found.append(f"the link to {target} is not isolated for right-to-left names")
        failures += [f"/{path}: {f}" for f in found]
    assert not t.dialogs, f"a name opened a dialog: {t.dialogs}"
    assert not failures, "\n".join(failures[:40])
    assert checked_links > 300


def _opponents_by_match(site: Site, league: str) -> dict[str, list[str]]:
    players = defaultdict(list)
    for row in site.changes(league):
        players[row["event"]].append(row["player"])
    return players


def test_chart_tooltips_show_hostile_names_as_text(sites, tab):
    """Hover the first point of every duel player's chart: the tooltip names the opponent exactly."""
    site = sites["hostile"]
    in_match = _opponents_by_match(site, "duel")
    t = tab("desktop")
    failures = []
    for name, path in sorted(site.players("duel").items()):
        t.problems.clear()
        t.open(site.url + path)
        point = t.page.locator("div.vega svg g.mark-symbol path").first
        if point.count() == 0:
            failures.append(f"/{path}: no chart point")
            continue
        point.hover(force=True)
        tooltip = t.page.locator("#vg-tooltip-element")
        tooltip.wait_for(state="visible")
        text = tooltip.text_content() or ""
        tokens = set(re.split(r"\s+", tooltip.inner_text()))
        matches = [m for m in in_match if m in tokens and name in in_match[m]]
        if len(matches) != 1:
            failures.append(f"/{path}: the tooltip names no match of {name!r}: {text!r}")
            continue
        for opponent in in_match[matches[0]]:
            if opponent != name and opponent not in text:
                failures.append(f"/{path}: the tooltip does not show {opponent!r} literally: {text!r}")
        elements = tooltip.locator("img, b, i, script, em").count()
        if elements:
            failures.append(f"/{path}: {elements} elements from a name in the tooltip")
        failures += [f"/{path}: {p}" for p in t.problems + t.page.evaluate(INJECTED)]
        t.page.mouse.move(0, 0)
    assert not t.dialogs, f"a name opened a dialog: {t.dialogs}"
    assert not failures, "\n".join(failures[:40])
