"""The leaderboard in headless Chromium: sorting, name search, filters, and the page without scripts.

The fixture site (``tests/fixtures/small``, conftest's ``small_site``) is built into a
temporary folder and served on 127.0.0.1. Its royale league has six players, three of them tied at 0
(rank 4: '<i>Eve & "Co"</i>', Mira, Zoë), tiers Bronze and Gold, and regions EU
and NA; its duel league has the platforms pc (Bo) and switch (Ωmega).

Every test also checks that the page logged no console error and asked nothing
of any host but 127.0.0.1.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

pytestmark = pytest.mark.browser

EVE = '<i>Eve & "Co"</i>'
ROYALE = ["Ana", "Bo", "Kaito", EVE, "Mira", "Zoë"]        # standings order


@pytest.fixture(scope="module")
def site_url(small_site):
    return small_site[1]


@pytest.fixture
def open_page(browser):
    """A page in a fresh context; its console errors and off-site requests are collected."""
    contexts, problems = [], []

    def _open(url: str, **options):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
        contexts.append(context)
        context.route(lambda u: urlsplit(u).scheme not in ("data", "blob", "about")
                      and urlsplit(u).hostname != "127.0.0.1",
                      lambda route: (problems.append(f"request off 127.0.0.1: {route.request.url}"),
                                     route.abort()))
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
        assert page.goto(url, wait_until="load").status == 200
        return page

    yield _open, problems
    for c in contexts:
        c.close()


def names(page) -> list[str]:
    """The player names of the visible rows, top to bottom (read as text)."""
    return page.locator("table.board tbody tr:visible th[scope=row]").all_inner_texts()


def header(page, label: str):
    return page.locator("table.board thead th", has=page.locator(f"button:text-is('{label}')"))


def test_sort_by_clicking_headers(site_url, open_page):
    _open, problems = open_page
    page = _open(site_url + "leagues/royale/")
    assert names(page) == ROYALE
    rank = page.locator("table.board thead th").first
    assert rank.get_attribute("aria-sort") == "ascending"

    player = header(page, "Player")
    player.locator("button").click()
    # Text: by the locale's collation, case and accents aside ("<" sorts before letters).
    assert names(page) == [EVE, "Ana", "Bo", "Kaito", "Mira", "Zoë"]
    assert player.get_attribute("aria-sort") == "ascending"
    assert rank.get_attribute("aria-sort") is None
    player.locator("button").click()
    assert names(page) == ["Zoë", "Mira", "Kaito", "Bo", "Ana", EVE]
    assert player.get_attribute("aria-sort") == "descending"

    # Numbers: the rating sorts highest first on the first click; the three tied at 0
    # keep the leaderboard's order both ways (a stable sort).
    rating = header(page, "Rating")
    rating.locator("button").click()
    assert rating.get_attribute("aria-sort") == "descending"
    assert names(page) == ROYALE
    rating.locator("button").click()
    assert rating.get_attribute("aria-sort") == "ascending"
    assert names(page) == [EVE, "Mira", "Zoë", "Kaito", "Bo", "Ana"]
    assert player.get_attribute("aria-sort") is None
    # The ranks move with their rows: they are the official ranks, not renumbered.
    assert page.locator("table.board tbody tr td:first-child").all_inner_texts() == ["4", "4", "4", "3", "2", "1"]

    # Games: Zoë played 2 and the other two tied at 0 once.
    games = header(page, "Games")
    games.locator("button").click()
    assert names(page) == ["Ana", "Bo", "Kaito", "Zoë", EVE, "Mira"]
    assert not problems, problems


def test_search_by_name_and_live_count(site_url, open_page):
    _open, problems = open_page
    page = _open(site_url + "leagues/royale/")
    status = page.locator("form.board-tools[role=search] [role=status]")
    assert status.inner_text() == "6 active of 6 players"
    search = page.get_by_label("Player", exact=True)
    search.type("ZOE")                              # case and accent aside: Zoë
    assert names(page) == ["Zoë"]
    sync_api.expect(status).to_have_text("1 of 6 active players shown")
    search.fill("")
    search.type("<i>")                              # the name's markup is text like any other
    assert names(page) == [EVE]
    sync_api.expect(status).to_have_text("1 of 6 active players shown")
    search.fill("a")                                # Ana, Kaito, Mira
    search.dispatch_event("input")
    assert names(page) == ["Ana", "Kaito", "Mira"]
    sync_api.expect(status).to_have_text("3 of 6 active players shown")
    search.fill("nobody")
    assert names(page) == []
    sync_api.expect(status).to_have_text("0 of 6 active players shown")
    search.press("Enter")                           # the form goes nowhere
    assert page.url == site_url + "leagues/royale/"
    assert not problems, problems


def test_filters(site_url, open_page):
    _open, problems = open_page
    page = _open(site_url + "leagues/royale/")
    status = page.locator("form.board-tools[role=search] [role=status]")
    page.get_by_label("Tier", exact=True).select_option(label="Gold")
    assert names(page) == ["Ana", "Bo"]
    sync_api.expect(status).to_have_text("2 of 6 active players shown")
    # Ranked among the players shown: the group's own 1 and 2, whatever their place overall.
    assert page.locator("table.board tbody tr:visible td:first-child").all_inner_texts() == ["1", "2"]
    page.get_by_label("Region", exact=True).select_option("EU")            # Bo is the one in EU
    assert names(page) == ["Bo"]
    page.get_by_label("Tier", exact=True).select_option("")
    page.get_by_label("Region", exact=True).select_option("NA")
    assert names(page) == [EVE]
    sync_api.expect(status).to_have_text("1 of 6 active players shown")
    # Royale has one platform only: no platform filter there. Duel has two.
    assert page.locator("#board-platform").count() == 0
    page = _open(site_url + "leagues/duel/")
    page.get_by_label("Platform", exact=True).select_option("switch")
    assert names(page) == ["Ωmega"]
    page.get_by_label("Platform", exact=True).select_option("pc")
    assert names(page) == ["Bo"]                               # bo_old's matches count for Bo
    assert page.locator("#board-tier").count() == 0            # the duel league has no tiers
    assert not problems, problems


def test_without_javascript_the_whole_table_is_there(site_url, open_page):
    _open, problems = open_page
    page = _open(site_url + "leagues/royale/", java_script_enabled=False)
    assert names(page) == ROYALE
    assert page.locator("table.board tbody tr td:first-child").all_inner_texts() == ["1", "2", "3", "4", "4", "4"]
    assert not page.locator("form.board-tools[role=search]").is_visible()
    assert page.locator("table.board thead button").count() == 0
    # The provisional mark and movement are in the page itself (a newcomer's "new").
    assert page.locator("table.board tbody tr").first.locator(".visually-hidden").first.inner_text() == \
        "first rated since 2024-05-03"
    # The chart's values are a table too.
    assert page.locator("#dist-h ~ details table tbody tr").count() >= 1
    assert not problems, problems


def test_no_layout_shift_and_controls_shown(site_url, open_page):
    _open, problems = open_page
    page = _open(site_url + "leagues/duel/")
    page.locator("div.vega").scroll_into_view_if_needed()       # drawn when it comes into view
    page.wait_for_function("() => document.querySelector('div.vega.drawn svg') !== null")
    # Each shift with what moved (element, rectangle before and after), so a failure says what to fix.
    shifts = page.evaluate("""() => new Promise(done => {
        const out = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) out.push({
            value: e.value, at: e.startTime, moved: (e.sources || []).map(s => [
                s.node ? `${s.node.nodeName}.${s.node.className || ""}#${s.node.id || ""}` : "?",
                JSON.stringify(s.previousRect), JSON.stringify(s.currentRect)])}); })
            .observe({type: "layout-shift", buffered: true});
        setTimeout(() => done(out), 300);
    })""")
    assert sum(s["value"] for s in shifts) == 0, shifts
    assert page.locator("form.board-tools[role=search]").is_visible()
    assert page.locator("table.board thead th button").count() >= 5
    assert not problems, problems
