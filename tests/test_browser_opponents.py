"""A big league's player page in headless Chromium: "Show all N opponents" under the head to
head draws every opponent from the player's games.json (assets/games.js), the rows the small
league's opponents page lists, names as text (one is markup), each linked to its page.

The league is the one of test_big_opponents.py, built as a big league (the threshold
lowered). No console or page error, no failed request and no request leaving 127.0.0.1
(``Tab`` in test_browser.py).
"""

from __future__ import annotations

import html
import re

import pytest

from helpers import league_toml, write_files
from test_big_opponents import ODD, OPPONENTS, duels, h2h, lobbies
from served import serving
from test_browser import VIEWPORTS, Tab, tab  # noqa: F401 (tab: the fixture)
from sitegen.model import scale
from sitegen.output.pages import HEAD_TO_HEAD

pytestmark = pytest.mark.browser
HERO = "leagues/{}/players/hero/"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from sitegen.commands.build import build

    tmp = tmp_path_factory.mktemp("opponents-browser")
    root = write_files(tmp / "root", {
        "matches/duel/league.toml": league_toml("elo", name="Duels"),
        "matches/duel/g.toml": duels(),
        "matches/lobby/league.toml": league_toml("placement", name="Lobbies"),
        "matches/lobby/g.toml": lobbies(),
    })
    served = tmp / "served"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scale, "BIG_LEAGUE_ROWS", 0)
        build(root, served / "site", cache=False)
    small = tmp / "small"
    build(root, small, cache=False)
    with serving(served, "opponents-site") as url:
        yield url + "site/", small



def _rows(t: Tab) -> list[list[str]]:
    return t.page.eval_on_selector_all("table.h2h tbody tr", "rows => rows.map(r => "
                                       "Array.from(r.cells, c => c.textContent))")


@pytest.mark.parametrize("league", ["duel", "lobby"])
@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_show_all_opponents_draws_the_opponents_page_rows(site, tab, league, viewport):
    url, small = site
    t = tab(viewport)
    assert t.open(url + HERO.format(league)).status == 200
    assert len(_rows(t)) == HEAD_TO_HEAD
    button = t.page.get_by_role("button", name=f"Show all {len(OPPONENTS)} opponents")
    button.click()
    t.page.wait_for_function("document.querySelector('table.h2h tbody').rows.length === %d" % len(OPPONENTS))
    assert not button.is_visible()
    want = [cells for _, cells in h2h(small / HERO.format(league) / "opponents/index.html")]
    assert [[c.strip() for c in row] for row in _rows(t)] == want
    note = t.page.locator("section[aria-labelledby=h2h-h] p.meta").first.inner_text()
    assert note == f"Every opponent, {len(OPPONENTS)} of them, most games first."
    # Names are text: the one written as markup is no element, and its link leads to its page.
    assert t.page.locator("table.h2h tbody b").count() == 0
    bad = t.page.locator("table.h2h tbody a", has_text=ODD[0])
    assert bad.count() == 1 and bad.get_attribute("title") == ODD[0]
    width, inner = t.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner
    bad.click()
    t.page.wait_for_url(url + f"leagues/{league}/players/b-bad-b-co/")
    assert t.page.locator("h1").inner_text() == ODD[0]
    assert not t.problems, t.problems


def test_without_javascript_the_section_says_where_the_record_is(site, tab):
    url, _ = site
    t = tab(java_script_enabled=False)
    assert t.page.goto(url + HERO.format("duel"), wait_until="load").status == 200
    assert len(_rows(t)) == HEAD_TO_HEAD
    section = t.page.locator("section[aria-labelledby=h2h-h]")
    assert not section.get_by_role("button").is_visible()
    for name in ("data file", "changes.csv", "matches.csv"):
        link = section.get_by_role("link", name=name)
        assert link.is_visible()
        assert t.page.request.get(link.evaluate("a => a.href")).ok
    assert not t.problems, t.problems


def _small_rank(small, league: str) -> str:
    """The rank as the small league's page shows it, its markup dropped and its spaces folded."""
    text = (small / HERO.format(league) / "index.html").read_text(encoding="utf-8")
    dd = re.search(r"<dt>Rank</dt><dd class=\"big\">(.*?)</dd>", text, re.S)
    assert dd is not None
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", dd.group(1))).split())


@pytest.mark.parametrize("league", ["duel", "lobby"])
def test_where_the_player_stands_is_read_in_from_standing_html(site, tab, league):
    """A big league's page shows the rank, the pool and the predictions of standing.html, where
    the small league's page has them itself: the same words, the same rows."""
    url, small = site
    t = tab("phone")
    assert t.open(url + HERO.format(league)).status == 200
    rank = t.page.locator("dl.facts dd[data-part=rank]")
    t.page.wait_for_function("!document.querySelector('dd[data-part=rank] a[href=\"standing.html\"]')")
    assert " ".join((rank.text_content() or "").split()) == _small_rank(small, league)
    page = (small / HERO.format(league) / "index.html").read_text(encoding="utf-8")
    for table in ("pool", "nearest"):
        found = re.search(rf'<table class="{table}">.*?<tbody>(.*?)</tbody>', page, re.S)
        want = found.group(1).count("<tr") if found else 0
        assert t.page.locator(f"[data-part=around] table.{table} tbody tr").count() == want
    width, inner = t.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner
    assert not t.problems, t.problems


def test_without_javascript_the_rank_is_a_link_to_where_the_player_stands(site, tab):
    url, small = site
    t = tab(java_script_enabled=False)
    assert t.page.goto(url + HERO.format("duel"), wait_until="load").status == 200
    link = t.page.get_by_role("link", name="See rank")
    assert link.is_visible()
    link.click()
    t.page.wait_for_url(url + HERO.format("duel") + "standing.html")
    assert t.page.locator("h1").inner_text() == "Where Hero stands"
    assert " ".join((t.page.locator("#rank").text_content() or "").split()) == _small_rank(small, "duel")
    assert not t.problems, t.problems
