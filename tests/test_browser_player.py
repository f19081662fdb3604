"""Player pages in headless Chromium: the history chart, its switches, the games list.

A league built for the purpose: Hero plays 150 elo games, one every five days
from 2023-01-02, against four opponents, one of them named with markup (and Lone
plays two games, too few for any range of the chart). So the
chart has 150 points, "Last 100 games" keeps 100 and "Last year" keeps the games
of the 365 days before Hero's last game. The player page shows the latest 20
games; "Show all 150 games" draws the whole history from the player's data file
(games.json, the file the chart reads too), and every date links to the match's
anchor on the page of its match file.

Every test also checks that nothing went wrong on the way: no console or page
error, no failed request and no request leaving 127.0.0.1 (see ``Tab`` in
test_browser.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import axe_run
from helpers import elo_match, league_toml, write_files
from served import serving
from test_browser import VIEWPORTS, Tab, sync_api, tab  # noqa: F401 (tab: the fixture)
from sitegen.output.pages import LATEST_GAMES

pytestmark = pytest.mark.browser
expect = sync_api.expect

BAD = '<b>Bad</b> & "Co"'
OPPONENTS = [BAD, "Ana", "Zoë", "Kai"]
GAMES = 150
START = datetime(2023, 1, 2, 18, tzinfo=timezone.utc)
PLAYED = [START + timedelta(days=5 * i) for i in range(GAMES)]
# The games from a year before the last one on: what "Last year" keeps.
IN_YEAR = sum(1 for t in PLAYED if t >= PLAYED[-1].replace(year=PLAYED[-1].year - 1))
PLAYER = "leagues/x/players/hero/"
POINTS = "div.vega svg g.mark-symbol path"


def _games() -> str:
    out = []
    for i, when in enumerate(PLAYED):
        score = (1, 0, 0.5, 1, 0)[i % 5]
        opponent = OPPONENTS[i % 4].replace("\\", "\\\\").replace('"', '\\"')
        out.append(elo_match(when.strftime("%Y-%m-%dT%H:%M:%SZ"), "Hero", score, opponent, 1 - score,
                             id=f"g{i + 1:03d}"))
    # Lone plays twice: no range to offer, one row of switches.
    out.append(elo_match("2024-01-05T10:00:00Z", "Lone", 1, "Kai", 0, id="lone-1"))
    out.append(elo_match("2024-01-06T10:00:00Z", "Lone", 0, "Ana", 1, id="lone-2"))
    return "".join(out)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from sitegen.commands.build import build

    root = write_files(tmp_path_factory.mktemp("player-root"), {
        "matches/x/league.toml": league_toml("elo", name="Player League", params='k = 20\nk_of = "each"'),
        "matches/x/games.toml": _games(),
    })
    served = tmp_path_factory.mktemp("player-served")
    build(root, served / "site")
    with serving(served, "player-site") as url:
        yield url + "site/"



def _points(t: Tab) -> int:
    return t.page.locator(POINTS).count()


def _press(t: Tab, name: str, expect_points: int) -> None:
    """Press a chart switch with the keyboard and wait for the chart to be drawn again."""
    button = t.page.get_by_role("button", name=name, exact=True)
    button.focus()
    t.page.keyboard.press("Enter")
    # aria-busy until the chart asked for is on screen (an axis switch keeps the number of points).
    t.page.wait_for_function("([sel, n]) => !document.querySelector('div.vega[aria-busy]')"
                             " && document.querySelectorAll(sel).length === n", arg=[POINTS, expect_points])
    assert button.get_attribute("aria-pressed") == "true"


def _axis_titles(t: Tab) -> list[str]:
    return t.page.locator("div.vega svg g.role-axis-title text").all_text_contents()


def test_chart_draws_a_point_per_game_and_its_switches_change_it(site, tab):
    t = tab()
    assert t.open(site + PLAYER).status == 200
    assert _points(t) == GAMES
    controls = t.page.locator("#history-controls")
    assert controls.is_visible()
    groups = controls.get_by_role("group")
    assert groups.count() == 2
    assert [g.get_attribute("aria-labelledby") for g in groups.all()] == ["axis-label", "range-label"]
    assert controls.locator("button[aria-pressed=true]").all_inner_texts() == ["Date", "All"]
    assert _axis_titles(t) == ["Rating"]          # dates need no title

    _press(t, "Last 100 games", 100)
    _press(t, "Last year", IN_YEAR)
    assert 60 < IN_YEAR < 100
    _press(t, "Game number", IN_YEAR)
    assert sorted(_axis_titles(t)) == ["Game", "Rating"]
    labels = t.page.locator("div.vega svg g.role-axis[aria-label^=X-axis] text").all_text_contents()
    numbers = [int(x.replace(",", "")) for x in labels if x.replace(",", "").isdigit()]
    assert numbers and min(numbers) >= GAMES - IN_YEAR and max(numbers) <= GAMES, labels
    _press(t, "All", GAMES)
    assert controls.locator("button[aria-pressed=true]").all_inner_texts() == ["Game number", "All"]
    assert controls.locator("button[aria-pressed=false]").all_inner_texts() == ["Date", "Last year",
                                                                              "Last 100 games"]
    _press(t, "Date", GAMES)
    assert _axis_titles(t) == ["Rating"]
    # Quick presses: one chart in the box at the end, the last range pressed.
    for name in ("Last year", "All", "Last 100 games"):
        t.page.get_by_role("button", name=name, exact=True).click()
    t.page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length === n", arg=[POINTS, 100])
    t.page.wait_for_timeout(300)
    assert t.page.locator("div.vega svg").count() == 1 and _points(t) == 100
    assert not t.problems, t.problems


def test_tooltip_shows_the_opponents_name_literally(site, tab):
    t = tab()
    assert t.open(site + PLAYER).status == 200
    _press(t, "Last 100 games", 100)       # points far enough apart to hover one
    # The first point kept is game 51, against OPPONENTS[50 % 4] = Zoë; game 53 is against Bad.
    t.page.locator(POINTS).nth(2).hover(force=True)
    tooltip = t.page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible")
    text = tooltip.inner_text()
    assert "g053" in text and BAD in text, text
    assert tooltip.locator("b").count() == 0, "the name's markup became an element"
    assert not t.problems, t.problems


def test_a_match_link_lands_on_the_match_and_the_full_history_loads(site, tab):
    t = tab()
    assert t.open(site + PLAYER).status == 200
    rows = t.page.locator("#games-rows tr")
    assert rows.count() == LATEST_GAMES
    assert rows.first.locator("td").first.inner_text() == str(GAMES)
    # The latest game's date leads to its row group on games.toml's second part (games 101-150).
    rows.first.locator("a").first.click()
    t.page.wait_for_url(site + "leagues/x/matches/games/2/#m-g150")
    section = t.page.locator("tbody#m-g150")
    expect(section).to_be_visible()
    expect(section).to_be_in_viewport()
    assert t.page.evaluate("document.querySelector(':target').id") == "m-g150"
    assert "g150" in section.locator("tr.mh").inner_text()
    assert sorted(section.locator("th[scope=row]").all_inner_texts()) == sorted(["Hero", OPPONENTS[149 % 4]])
    t.page.go_back()
    t.page.wait_for_url(site + PLAYER)

    button = t.page.get_by_role("button", name=f"Show all {GAMES} games")
    button.click()
    t.page.wait_for_function("document.querySelectorAll('#games-rows tr').length === %d" % GAMES)
    assert not button.is_visible()
    numbers = t.page.locator("#games-rows tr td:first-child").all_inner_texts()
    assert numbers == [str(n) for n in range(GAMES, 0, -1)]
    first = t.page.locator("#games-rows tr").last
    assert first.locator("td").nth(2).inner_text() == OPPONENTS[0]          # the name as text, not markup
    first.locator("a").click()
    t.page.wait_for_url(site + "leagues/x/matches/games/#m-g001")
    expect(t.page.locator("tbody#m-g001")).to_be_in_viewport()
    t.page.go_back()
    t.page.get_by_role("link", name="a page of its own").click()     # 4 opponents: all on the page
    t.page.wait_for_url(site + PLAYER + "opponents/")
    names = t.page.locator("table.h2h tbody tr td:first-child").all_inner_texts()
    assert sorted(names) == sorted(OPPONENTS)
    assert not t.problems, t.problems


def test_vega_is_fetched_after_the_load_event_and_only_where_a_chart_is(site, tab):
    """The history chart needs only the small runtime and its compiled spec, never vega.js (the
    Vega-Lite compiler and vega-embed), and both after the load event."""
    t = tab()
    assert t.open(site + PLAYER).status == 200
    load, fetched = t.page.evaluate("""() => [
        performance.getEntriesByType('navigation')[0].loadEventStart,
        performance.getEntriesByType('resource').map(e => [new URL(e.name).pathname.split('/').pop(), e.startTime])]""")
    names = [name for name, _ in fetched]
    for name in ("vega-runtime.js", "history.vg.json"):
        starts = [start for n, start in fetched if n == name]
        assert len(starts) == 1 and starts[0] >= load, (name, load, fetched)
    assert "vega.js" not in names and "history.vl.json" not in names, names
    t.open(site + "leagues/x/matches/games/")
    t.open(site + PLAYER + "opponents/")
    fetched = t.page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
    names = {u.rsplit("/", 1)[-1] for u in fetched}
    assert not names & {"vega.js", "vega-runtime.js", "history.vg.json"}, "Vega fetched on a page without a chart"
    assert not t.problems, t.problems


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_drawing_the_chart_moves_nothing(site, tab, viewport):
    """Cumulative layout shift 0: the chart's box and its switches' room are kept from the first paint."""
    t = tab(viewport)
    t.page.add_init_script("""window.__shifts = [];
        new PerformanceObserver(list => list.getEntries().forEach(e => window.__shifts.push(e.value)))
            .observe({type: 'layout-shift', buffered: true});""")
    for path in (PLAYER, "leagues/x/matches/games/2/", PLAYER + "opponents/", "leagues/x/players/lone/"):
        assert t.open(site + path).status == 200
        t.page.wait_for_timeout(300)
        shifts = t.page.evaluate("window.__shifts")
        assert sum(shifts) == 0, f"/{path}: layout shifts {shifts}"
        width, inner = t.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= inner, f"/{path}: the page is {width} px wide in a {inner} px window"
    assert not t.problems, t.problems


def test_without_javascript_the_tables_say_it_all(site, tab):
    t = tab(java_script_enabled=False)
    response = t.page.goto(site + PLAYER, wait_until="load")
    assert response.status == 200
    assert not t.page.locator("#history-controls").is_visible()
    assert t.page.locator("#history-controls").bounding_box() is None      # no room kept for it either
    # No chart drawn, but never an empty box: the preview drawn at build time is there.
    assert t.page.locator("div.vega .vega-live").count() == 0
    assert t.page.locator("div.vega svg.preview path.line").count() == 1
    summary = t.page.locator("details.history-values summary")
    assert summary.inner_text() == "Rating by month"
    summary.click()
    months = t.page.locator("details.history-values tbody tr")
    assert months.count() == len({f"{d:%Y-%m}" for d in PLAYED})
    assert months.first.locator("th").inner_text() == "2023-01"
    assert t.page.locator("#games-rows tr").count() == LATEST_GAMES
    # Without scripts the button stays hidden; the data file and changes.csv hold every game.
    assert not t.page.get_by_role("button", name=f"Show all {GAMES} games").is_visible()
    assert t.page.get_by_role("link", name="changes.csv").get_attribute("href") == "../../../../data/x/changes.csv"
    assert not t.problems, t.problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_axe_finds_no_violation_with_the_switches_shown(site, tab, viewport, scheme):
    pytest.importorskip("axe_playwright_python.sync_playwright",
                        reason="the axe-playwright-python package is not installed")
    t = tab(viewport, color_scheme=scheme)
    found = []
    for path in (PLAYER, "leagues/x/matches/games/2/", PLAYER + "opponents/"):
        assert t.open(site + path).status == 200
        if path == PLAYER:
            t.page.locator("details.history-values summary").click()
            _press(t, "Game number", GAMES)
        for v in axe_run.violations(t.page):
            found.append(f"/{path}: {v['id']} {v['help']}: {[n['target'] for n in v['nodes'][:3]]}")
    assert not found and not t.problems, found + t.problems


def test_dark_scheme_draws_the_dark_compile_on_the_page_background(site, tab):
    t = tab(color_scheme="dark")
    assert t.open(site + PLAYER).status == 200
    assert _points(t) == GAMES
    colours = t.page.evaluate("""() => {
        const svg = document.querySelector('div.vega .vega-live svg');
        return [svg.style.backgroundColor, svg.querySelector('g.role-axis-label text').getAttribute('fill')];
    }""")
    assert colours[0] == "transparent", colours                  # the page's own background shows
    assert colours[1] == "#fff", colours                                         # vega-themes' dark labels
    _press(t, "Game number", GAMES)
    assert sorted(_axis_titles(t)) == ["Game", "Rating"]
    assert not t.problems, t.problems


def test_a_theme_player_page_naming_the_vega_lite_spec_still_gets_its_chart(tmp_path, tab):
    """A site's own player.html written before the compiled spec (data-spec-url, history.vl.json)
    is drawn by vega-embed from vega.js, switches and all."""
    from pathlib import Path

    from sitegen.commands.build import build

    theme = (Path(__file__).resolve().parent.parent / "templates" / "player.html").read_text(encoding="utf-8")
    old = theme.replace("data-vega-url=", "data-spec-url=").replace("assets/history.vg.json", "assets/history.vl.json")
    assert old != theme
    root = write_files(tmp_path / "root", {
        "matches/x/league.toml": league_toml("elo", name="Player League", params='k = 20\nk_of = "each"'),
        "matches/x/games.toml": _games(),
        "templates/player.html": old,
    })
    build(root, tmp_path / "served" / "site")
    with serving(tmp_path / "served", "old-theme-site") as url:
        t = tab()
        assert t.open(f"{url}site/{PLAYER}").status == 200
        assert _points(t) == GAMES
        t.page.get_by_role("button", name="Last 100 games", exact=True).click()
        t.page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length === n", arg=[POINTS, 100])
        fetched = {u.rsplit("/", 1)[-1] for u in t.page.evaluate(
            "() => performance.getEntriesByType('resource').map(e => e.name)")}
        assert {"vega.js", "history.vl.json"} <= fetched and "vega-runtime.js" not in fetched, fetched
        assert not t.problems, t.problems
