"""Search, the 404 page and links under a sub-path, in headless Chromium.

The fixture site is built with ``--base-url http://127.0.0.1:PORT/sub/path/`` and
served under that path only, as GitHub Pages serves a project site: any other
path is a 404, and a missing path at any depth gets the site's 404.html. The
hostile-names fixture, when the repository has it, is served the same way under
``/hostile/``.

Every test records console errors, page errors, failed requests, requests that
leave 127.0.0.1 and JavaScript dialogs, and asserts there were none.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from served import QuietHandler, serving

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "small"
HOSTILE = REPO / "tests" / "fixtures" / "hostile"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 20_000
SUB = "/sub/path/"
EVE = '<i>Eve & "Co"</i>'
# Names of the hostile fixture that a search can find (punctuation alone is not a word).
HOSTILE_NAMES = ['</script><script>window.__pwned=1</script>', '"><img src=x onerror=alert(1)>',
                 "O'Brien \"the\" Quick", "Tom &amp; Jerry", "محمد علي", "👩🏽‍🚀 Nova", "${alert(1)}"]


class SubPathHandler(QuietHandler):
    """Each site under its own prefix and nothing else; a missing path gets the site's 404.html."""

    sites: dict[str, Path] = {}

    def send_head(self):
        path = urlsplit(self.path).path
        for prefix, folder in self.sites.items():
            if not path.startswith(prefix):
                continue
            self.directory = str(folder)
            inside = path[len(prefix) - 1:]
            local = Path(self.translate_path(inside))
            if local.is_dir() and not path.endswith("/"):
                self.send_response(301)
                self.send_header("Location", path + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            if local.is_file() or (local / "index.html").is_file():
                self.path = inside
                return super().send_head()
            return self._not_found(folder / "404.html")
        return self._not_found(None)

    def _not_found(self, page: Path | None):
        body = page.read_bytes() if page is not None else b"not found"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Built sites by name: (folder, URL of the site's root)."""
    from sitegen.commands.build import build

    base = tmp_path_factory.mktemp("served-sub")
    handler = type("Handler", (SubPathHandler,), {"sites": {}})
    with serving(handler=handler, name="sub-path-server") as root:
        origin = root.rstrip("/")
        sites = {"small": (base / "small", origin + SUB)}
        if (HOSTILE / "matches").is_dir():
            sites["hostile"] = (base / "hostile", origin + "/hostile/")
        for name, (folder, url) in sites.items():
            build(FIXTURE if name == "small" else HOSTILE, folder, base_url=url)
            handler.sites[urlsplit(url).path] = folder
        yield sites



class Tab:
    """A page in a fresh context that records everything that must never happen."""

    def __init__(self, browser, viewport=DESKTOP, **options) -> None:
        self.context = browser.new_context(viewport=viewport, service_workers="block", **options)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.expected_404: set[str] = set()
        self.context.route(lambda url: urlsplit(url).hostname != "127.0.0.1", self._refuse)
        self.page = self.context.new_page()
        page = self.page
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: r.status >= 400 and r.url not in self.expected_404
                and self.problems.append(f"HTTP {r.status}: {r.url}"))
        page.on("dialog", self._dialog)

    def _failed(self, request) -> None:
        # ERR_ABORTED: Chromium dropped a request because the tab moved on (a favicon still
        # loading when a search opens the next page); a missing file shows as an HTTP status.
        if request.failure and "ERR_ABORTED" in request.failure:
            return
        self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _refuse(self, route) -> None:
        self.problems.append(f"off-site request: {route.request.url}")
        route.abort()

    def _console(self, msg) -> None:
        if msg.type != "error":
            return
        # The browser reports the 404 status of a page that is meant to be missing.
        if msg.text.startswith("Failed to load resource") and msg.location.get("url") in self.expected_404:
            return
        self.problems.append(f"console error: {msg.text}")

    def _dialog(self, dialog) -> None:
        self.problems.append(f"dialog opened: {dialog.type} {dialog.message!r}")
        dialog.dismiss()

    def check(self) -> None:
        pwned = self.page.evaluate("() => window.__pwned")
        assert pwned is None, "a script from the data ran"
        assert not self.problems, "\n".join(self.problems)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser):
    tabs: list[Tab] = []

    def make(**options) -> Tab:
        t = Tab(browser, **options)
        tabs.append(t)
        return t

    yield make
    for t in tabs:
        t.close()


def results(page) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "#search-results > li.search-result",
        """items => items.map(li => ({
            title: li.querySelector('a').textContent, href: li.querySelector('a').href,
            kind: li.querySelector('.search-kind').textContent,
            league: (li.querySelector('.search-league') || {}).textContent || '',
            detail: (li.querySelector('.meta') || {}).textContent || ''}))""")


def wait_for_results(page, query: str) -> None:
    """Until the status names this query (the answer to it, not to an earlier keystroke)."""
    page.wait_for_function(
        "q => { const s = document.getElementById('search-status').textContent;"
        " return s.endsWith('for \\u201c' + q + '\\u201d.'); }", arg=query.strip())


def changes(folder: Path, league: str) -> list[dict[str, str]]:
    text = (folder / "data" / league / "changes.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def standings(folder: Path, league: str) -> list[dict[str, str]]:
    text = (folder / "data" / league / "standings.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


# --- search ------------------------------------------------------------------------------------

@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_header_search_finds_a_name_with_markup_and_leads_to_the_player(server, tab, viewport):
    folder, root = server["small"]
    t = tab(viewport=viewport)
    page = t.page
    page.goto(root)
    assert not any("/search/index/" in url for url in t.requests), "search index loaded before any search"
    page.fill("#site-search-q", EVE)
    page.press("#site-search-q", "Enter")
    page.wait_for_url(root + "search/?q=*")
    assert urlsplit(page.url).path == SUB + "search/"
    wait_for_results(page, EVE)
    found = results(page)
    kinds = [r["kind"] for r in found]
    assert kinds == ["Player"] * kinds.count("Player") + ["Match"] * kinds.count("Match")   # players first
    played = {(league.name, row["event"]) for league in (folder / "data").iterdir()
              for row in changes(folder, league.name) if row["player"] == EVE}
    assert kinds.count("Match") == len(played) == 4       # no glicko2 period: events are matches
    eve = [r for r in found if r["title"] == EVE]
    # Eve plays in two leagues of the fixture: one player page in each.
    assert sorted(r["league"] for r in eve if r["kind"] == "Player") == ["Fixture Duels", "Fixture Royale"]
    assert page.locator("#search-results i, #search-results script, #search-results img").count() == 0
    assert page.input_value("#search-q") == EVE                 # the form shows what was searched
    duel = next(r for r in eve if r["league"] == "Fixture Duels" and r["kind"] == "Player")
    rank = next(row["rank"] for row in standings(folder, "duel") if row["player"] == EVE)
    assert duel["detail"].startswith(f"Rank {rank} · rating ")
    page.click(f'#search-results a[href="{root}leagues/duel/players/i-eve-co-i/"]')
    page.wait_for_url(root + "leagues/duel/players/i-eve-co-i/")
    assert page.locator("h1").first.text_content().strip().startswith(EVE)
    t.check()


def test_filters_narrow_the_results_to_a_kind_and_a_league(server, tab):
    folder, root = server["small"]
    t = tab()
    page = t.page
    page.goto(root + "search/?kind=match&league=duel")
    assert page.input_value("select[name=kind]") == "match"
    assert page.input_value("select[name=league]") == "duel"
    page.fill("#search-q", "Bo")
    wait_for_results(page, "Bo")
    found = results(page)
    played = {row["event"] for row in changes(folder, "duel") if row["player"] == "Bo"}
    assert len(found) == len(played) == 3
    assert {r["kind"] for r in found} == {"Match"} and {r["league"] for r in found} == {"Fixture Duels"}
    # Each result is the match's anchor on the page of its match file.
    assert {urlsplit(r["href"]).fragment for r in found} == {f"m-{m}" for m in played}
    assert all(urlsplit(r["href"]).path.startswith(f"{SUB}leagues/duel/matches/") for r in found)
    # The address keeps the search: a reload shows the same results.
    assert "q=Bo" in page.url and "kind=match" in page.url and "league=duel" in page.url
    page.reload()
    wait_for_results(page, "Bo")
    assert len(results(page)) == 3
    page.select_option("select[name=kind]", "player")
    page.wait_for_function("() => document.querySelectorAll('#search-results .search-kind').length === 1")
    assert [(r["title"], r["kind"]) for r in results(page)] == [("Bo", "Player")]
    t.check()


def test_index_loads_only_when_searched_and_only_what_the_query_needs(server, tab):
    _, root = server["small"]
    t = tab()
    page = t.page
    page.goto(root + "search/")
    page.wait_for_load_state("networkidle")
    assert not any("/search/index/" in url for url in t.requests)
    assert page.text_content("#search-status") == ""
    page.fill("#search-q", "Ana")
    wait_for_results(page, "Ana")
    loaded = sorted({url for url in t.requests if "/search/index/" in url})
    # The manifest, the words starting "an" and the one chunk of records: nothing else.
    assert loaded == [root + "search/index/manifest.json", root + "search/index/records/0.json",
                      root + "search/index/words/616e.json"], loaded
    assert results(page)
    t.check()


def test_a_word_begun_finds_leagues_players_and_matches_in_that_order(server, tab):
    folder, root = server["small"]
    t = tab()
    page = t.page
    page.goto(root + "search/?q=fixture%20du")
    wait_for_results(page, "fixture du")
    assert [(r["title"], r["kind"], r["href"]) for r in results(page)] == [
        ("Fixture Duels", "League", root + "leagues/duel/")]
    page.fill("#search-q", "ev")                        # the start of a word is enough
    wait_for_results(page, "ev")
    found = results(page)
    kinds = [r["kind"] for r in found]
    assert kinds == sorted(kinds, key=["Player", "League", "Match"].index)
    assert {r["title"] for r in found if r["kind"] == "Player"} == {EVE}
    # Matches newest first, as the match pages date them.
    dates = [r["detail"][:10] for r in found if r["kind"] == "Match"]
    assert dates == sorted(dates, reverse=True) and len(dates) == 4
    page.select_option("select[name=kind]", "league")
    wait_for_results(page, "ev")
    assert page.text_content("#search-status") == "Nothing found for \u201cev\u201d."
    page.fill("#search-q", "royale")
    wait_for_results(page, "royale")
    assert [(r["title"], r["kind"]) for r in results(page)] == [("Fixture Royale", "League")]
    t.check()


def test_search_page_without_javascript_points_to_the_leaderboards(server, tab):
    _, root = server["small"]
    t = tab(java_script_enabled=False)
    page = t.page
    page.goto(root + "search/?q=Ana")
    assert "needs JavaScript" in page.inner_text("main")
    page.get_by_role("link", name="Fixture Duels").last.click()
    page.wait_for_url(root + "leagues/duel/")
    t.check()


# --- the 404 page and links ---------------------------------------------------------------------

@pytest.mark.parametrize("missing", ["nothing-here", "a/b/c/deep/", "leagues/duel/players/nobody/"])
def test_missing_path_gets_a_styled_404_whose_links_work(server, tab, missing):
    _, root = server["small"]
    t = tab()
    page = t.page
    css: list[tuple[str, int]] = []
    page.on("response", lambda r: r.url.endswith(".css") and css.append((r.url, r.status)))
    t.expected_404.add(root + missing)
    response = page.goto(root + missing)
    assert response.status == 404
    assert page.locator("h1").text_content() == "Page not found"
    assert css == [(root + "assets/site.css", 200)]
    # The stylesheet applies: the header has its border and the search button its colour.
    assert page.eval_on_selector(".site-header", "e => getComputedStyle(e).borderBottomStyle") == "solid"
    assert page.eval_on_selector(".site-search button",
                                 "e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    page.get_by_role("link", name="home page").click()
    page.wait_for_url(root)
    assert page.locator("h1").text_content() == "Fixture leagues"
    t.check()


def test_search_from_the_404_page(server, tab):
    _, root = server["small"]
    t = tab()
    page = t.page
    t.expected_404.add(root + "x/y/z")
    page.goto(root + "x/y/z")
    page.fill("#site-search-q", "Ωmega")
    page.press("#site-search-q", "Enter")
    page.wait_for_url(root + "search/?q=*")
    wait_for_results(page, "Ωmega")
    assert any(r["title"] == "Ωmega" and r["kind"] == "Player" for r in results(page))
    t.check()


CRAWLED = ["", "leagues/duel/", "leagues/duel/players/i-eve-co-i/", "leagues/duel/matches/round-1/",
           "leagues/royale/", "search/", "about/", "spec/lunaro/", "no/such/page/"]


def test_no_link_is_broken_under_the_sub_path(server, tab):
    _, root = server["small"]
    t = tab()
    page = t.page
    t.expected_404.add(root + "no/such/page/")
    checked: dict[str, int] = {}
    for rel in CRAWLED:
        page.goto(root + rel)
        page.wait_for_load_state("networkidle")      # scripts a page loads late are part of it
        addresses = page.eval_on_selector_all(
            "a[href], link[href], script[src], form[action], img[src]",
            "els => els.map(e => e.href || e.src || e.action)")
        assert addresses, rel
        for address in addresses:
            address = address.split("#")[0]
            if not address or address in checked or address == root + rel:     # "#main" and the like
                continue
            assert address.startswith(root), f"{rel}: {address} leaves {root}"
            response = page.request.get(address)
            checked[address] = response.status
            assert response.status == 200, f"{rel}: {address} gives {response.status}"
    assert root + "leagues/duel/feed.xml" in checked and root + "assets/site.css" in checked
    assert len(checked) > 50
    t.check()


# --- hostile names -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_are_found_and_shown_literally(server, tab, name):
    if "hostile" not in server:
        pytest.skip("the repository has no tests/fixtures/hostile")
    _, root = server["hostile"]
    t = tab()
    page = t.page
    page.goto(root + "search/?kind=player&q=" + quote(name))
    wait_for_results(page, name)
    found = results(page)
    assert any(r["title"] == name for r in found), [r["title"] for r in found]
    mine = next(r for r in found if r["title"] == name)
    assert mine["href"].startswith(root + "leagues/")
    assert page.locator("#search-results script, #search-results img, #search-results b").count() == 0
    page.locator("#search-results a").filter(has_text=name).first.click()
    page.wait_for_url(mine["href"])
    assert name in page.locator("h1").first.text_content()
    t.check()


def test_hostile_names_typed_in_the_header(server, tab):
    if "hostile" not in server:
        pytest.skip("the repository has no tests/fixtures/hostile")
    _, root = server["hostile"]
    t = tab()
    page = t.page
    page.goto(root)
    name = HOSTILE_NAMES[0]
    page.fill("#site-search-q", name)
    page.press("#site-search-q", "Enter")
    page.wait_for_url(root + "search/?q=*")
    wait_for_results(page, name)
    assert any(r["title"] == name for r in results(page))
    assert page.input_value("#search-q") == name
    t.check()
